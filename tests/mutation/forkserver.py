"""Runs pytest for one mutant after another in a tree of its own, without paying for
Python's and the libraries' start each time: this process imports pytest and the
package's dependencies once (never the package itself), then for each request (a JSON
line on stdin: the module, its mutated source, pytest's arguments, a timeout and a bound
per test) writes the mutant, forks a child that runs pytest, waits for it (killing it at
the timeout), puts the original back and answers a JSON line: pytest's exit code, or null
on a timeout. A test that runs past its own bound ends its pytest at once (`Bounds`), as
a timeout: a mutant that deadlocks one test (a lock never released, a socket never read)
is judged in a minute or two, not at the whole selection's timeout, up to an hour.

    cd TREE && python PATH/TO/forkserver.py

The tree is the current directory, first on sys.path (the package and the tests are
imported from it, not from where this file is).
"""

from __future__ import annotations

import base64
import contextlib
import importlib
import importlib.metadata
import json
import os
import signal
import sys
import threading
import time
from collections.abc import Generator
from pathlib import Path

import pytest

PRELOAD = [
    "pytest",
    "pydantic",
    "httpx",
    "rich.console",
    "ruamel.yaml",
    "yaml",
    "click",
    "psutil",
    "filelock",
    "platformdirs",
    "email_validator",
    "defusedxml.ElementTree",
    "hypothesis",
    "deepdiff",
    "starlette.applications",
]


OVERRAN = 124  # the exit code of a pytest one of whose tests ran past its bound (as timeout(1))


class Bounds:
    """A pytest plugin that gives each test (setup, call and teardown) its own time, by
    node id, and ends the process with OVERRAN when one runs past it. A thread watches,
    not a signal: a test stuck in a system call or in another thread still ends."""

    def __init__(self, bounds: dict[str, float], default: float) -> None:
        self.bounds, self.default = bounds, default
        self.deadline: float | None = None
        threading.Thread(target=self._watch, daemon=True).start()

    def _watch(self) -> None:
        while True:
            time.sleep(0.2)
            deadline = self.deadline
            if deadline is not None and time.monotonic() > deadline:
                os._exit(OVERRAN)

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_protocol(self, item: pytest.Item) -> Generator[None, None, None]:
        self.deadline = time.monotonic() + self.bounds.get(item.nodeid, self.default)
        try:
            yield
        finally:
            self.deadline = None


def _child(args: list[str], bounds: dict[str, float], default: float) -> None:
    os.setsid()
    quiet = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(quiet, fd)
    code = 3
    try:
        code = int(pytest.main(args, plugins=[Bounds(bounds, default)]))
    finally:
        os._exit(code)


def _wait(pid: int, timeout: float) -> int | None:
    deadline = time.monotonic() + timeout
    code: int | None = None
    while time.monotonic() < deadline:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            code = os.waitstatus_to_exitcode(status)
            break
        time.sleep(0.05)
    # Whatever its end, nothing the child started outlives it: a pytest ended past a
    # bound leaves its test's servers and CLI processes behind, in its process group.
    with contextlib.suppress(ProcessLookupError):
        os.killpg(pid, signal.SIGKILL)
    if code is None:
        os.waitpid(pid, 0)
    return None if code == OVERRAN else code


def judge(
    module: Path,
    mutated: bytes,
    args: list[str],
    timeout: float,
    bounds: dict[str, float] | None = None,
    default: float = 3600.0,
) -> int | None:
    original, stat = module.read_bytes(), module.stat()
    module.write_bytes(mutated)
    try:
        pid = os.fork()
        if pid == 0:
            _child(args, bounds or {}, default)
        return _wait(pid, timeout)
    finally:
        module.write_bytes(original)
        os.utime(module, ns=(stat.st_atime_ns, stat.st_mtime_ns))


def main() -> None:
    sys.dont_write_bytecode = True  # a mutant's bytecode must never be reused
    sys.path[0] = os.getcwd()
    for name in PRELOAD:
        with contextlib.suppress(ImportError):
            importlib.import_module(name)
    # pytest's plugins (anyio's alone takes a second to import, its asserts rewritten):
    # imported once here, they are not rewritten, which changes no test's outcome.
    for entry in importlib.metadata.entry_points(group="pytest11"):
        with contextlib.suppress(Exception):
            entry.load()
    for line in sys.stdin:
        request = json.loads(line)
        mutated = base64.b64decode(request["source"])
        code = judge(
            Path(request["module"]),
            mutated,
            request["args"],
            request["timeout"],
            request.get("bounds"),
            request.get("default", 3600.0),
        )
        print(json.dumps({"code": code}), flush=True)


if __name__ == "__main__":
    main()
