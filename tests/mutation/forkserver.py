"""Runs pytest for one mutant after another in a tree of its own, without paying for
Python's and the libraries' start each time: this process imports pytest and the
package's dependencies once (never the package itself), then for each request (a JSON
line on stdin: the module, its mutated source, pytest's arguments, a timeout) writes the
mutant, forks a child that runs pytest, waits for it (killing it at the timeout), puts
the original back and answers a JSON line: pytest's exit code, or null on a timeout.

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
import time
from pathlib import Path

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


def _child(args: list[str]) -> None:
    os.setsid()
    quiet = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(quiet, fd)
    import pytest

    code = 3
    try:
        code = int(pytest.main(args))
    finally:
        os._exit(code)


def _wait(pid: int, timeout: float) -> int | None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            return os.waitstatus_to_exitcode(status)
        time.sleep(0.05)
    with contextlib.suppress(ProcessLookupError):
        os.killpg(pid, signal.SIGKILL)
    os.waitpid(pid, 0)
    return None


def judge(module: Path, mutated: bytes, args: list[str], timeout: float) -> int | None:
    original, stat = module.read_bytes(), module.stat()
    module.write_bytes(mutated)
    try:
        pid = os.fork()
        if pid == 0:
            _child(args)
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
        code = judge(Path(request["module"]), mutated, request["args"], request["timeout"])
        print(json.dumps({"code": code}), flush=True)


if __name__ == "__main__":
    main()
