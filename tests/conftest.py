"""Fixtures for the whole suite: no test may leave a process running.

End-to-end tests start `reconciler sandbox serve` (and the CI tests shell scripts) as
child processes. One left behind keeps a port and a database open long after pytest has
ended, on a machine other people share. So:

- `_no_leftover_children` (every test): a child process of pytest that was not running
  before the test and still runs after it is killed and fails that test, naming it.
- `_no_leftover_processes` (the session): at the end, any process that carries this run's
  marker in its environment (children inherit it, also the ones that were re-parented
  when their parent ended) or is still a child of pytest is killed and fails the run.

The tests of Ctrl-C send SIGINT to their own process, so Ctrl-C is Python's own at the
start even where the suite runs as a background job (`pytest &`, or under mutmut started
so), which inherits Ctrl-C ignored.
"""

from __future__ import annotations

import contextlib
import os
import signal
import uuid
from collections.abc import Iterator

import psutil
import pytest

MARKER = "RECONCILER_TEST_RUN"

signal.signal(signal.SIGINT, signal.default_int_handler)


def _running(processes: list[psutil.Process]) -> list[psutil.Process]:
    alive = []
    for proc in processes:
        try:
            if proc.is_running() and proc.status() != psutil.STATUS_ZOMBIE:
                alive.append(proc)
        except psutil.NoSuchProcess:
            pass
    return alive


# Linux lists each thread's children in /proc/PID/task/TID/children: a file read per
# thread, where psutil's `children()` reads the parent of every process on the machine
# (about 10 ms, and `_no_leftover_children` asks twice per test).
_CHILDREN_FILES = os.path.exists(f"/proc/{os.getpid()}/task/{os.getpid()}/children")


def _child_pids() -> list[int]:
    """The pids of pytest's children and of their descendants (zombies included)."""
    if not _CHILDREN_FILES:
        return [p.pid for p in psutil.Process().children(recursive=True)]
    found: list[int] = []
    pending = [os.getpid()]
    while pending:
        parent = pending.pop()
        with contextlib.suppress(OSError):  # a process or thread that has ended meanwhile
            for tid in os.listdir(f"/proc/{parent}/task"):
                with contextlib.suppress(OSError):
                    with open(f"/proc/{parent}/task/{tid}/children", encoding="ascii") as f:
                        pids = [int(word) for word in f.read().split()]
                    found.extend(pids)
                    pending.extend(pids)
    return found


def _processes(pids: list[int]) -> list[psutil.Process]:
    processes = []
    for pid in dict.fromkeys(pids):
        with contextlib.suppress(psutil.NoSuchProcess):
            processes.append(psutil.Process(pid))
    return _running(processes)


def _children() -> list[psutil.Process]:
    return _processes(_child_pids())


def _describe(proc: psutil.Process) -> str:
    try:
        return f"pid {proc.pid}: {' '.join(proc.cmdline()) or proc.name()}"
    except psutil.Error:
        return f"pid {proc.pid}"


def _kill(processes: list[psutil.Process]) -> None:
    for proc in processes:
        with contextlib.suppress(psutil.NoSuchProcess):
            proc.kill()
    psutil.wait_procs(processes, timeout=10)


def _carries_marker(proc: psutil.Process, marker: str) -> bool:
    try:
        return proc.environ().get(MARKER) == marker
    except psutil.Error:  # another user's process, or gone
        return False


def leftovers(marker: str) -> list[psutil.Process]:
    """Processes of this run still running: pytest's children, and any process whose
    environment carries `marker` (pytest itself aside)."""
    me = os.getpid()
    found = {p.pid: p for p in _children()}
    for proc in psutil.process_iter():
        if proc.pid != me and proc.pid not in found and _carries_marker(proc, marker):
            found[proc.pid] = proc
    return _running(list(found.values()))


@pytest.fixture(scope="session", autouse=True)
def _no_leftover_processes() -> Iterator[None]:
    marker = f"{os.getpid()}-{uuid.uuid4().hex}"
    previous = os.environ.get(MARKER)
    os.environ[MARKER] = marker
    yield
    left = leftovers(marker)
    described = [_describe(p) for p in left]
    _kill(left)
    if previous is None:
        os.environ.pop(MARKER, None)
    else:
        os.environ[MARKER] = previous
    if left:
        pytest.fail(
            "processes started by the test run were still running at its end (killed now):\n"
            + "\n".join(described),
            pytrace=False,
        )


@pytest.fixture(autouse=True)
def _no_leftover_children(request: pytest.FixtureRequest) -> Iterator[None]:
    before = set(_child_pids())
    yield
    left = _processes([pid for pid in _child_pids() if pid not in before])
    if left:
        described = [_describe(p) for p in left]
        _kill(left)
        pytest.fail(
            f"{request.node.nodeid} left child processes running (killed now):\n"
            + "\n".join(described),
            pytrace=False,
        )
