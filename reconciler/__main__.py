"""`python -m reconciler`: the CLI, then a quick end of the process.

Tearing the interpreter down (freeing every module and object) costs an `apply` about
0.2 s of CPU and of wall time after its work is done (issue 25: a tenth of the start-up
of `apply --parallelism 10` in benchmarks/client_cpu.py), and no command needs it. So
when the command ends, the exit handlers run (coverage, and whatever a library
registered), the standard streams are flushed, and the process ends with the command's
status. Python's own exit is kept where it does more: when another thread is alive (it
waits for it), when a stream cannot be flushed (it reports that), and when this module
was not started as the program (`runpy` in a test). The installed `reconciler` script
calls `command()`, which ends the same way.
"""

from __future__ import annotations

import atexit
import os
import sys
import threading

from reconciler.cli import main


def _status(code: object) -> int | None:
    """The process status `sys.exit(code)` gives, or None when Python must print it."""
    if code is None:
        return 0
    if isinstance(code, int) and not isinstance(code, bool):
        return code & 0xFF
    return None


def _quick_exit(stop: SystemExit) -> None:
    status = _status(stop.code)
    if status is None or threading.active_count() > 1:
        return
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except (OSError, ValueError):  # a closed pipe or stream: Python's exit reports it
        return
    atexit._run_exitfuncs()
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except (OSError, ValueError):
        os._exit(status or 120)  # what Python's exit gives when the flush fails
    os._exit(status)


def _is_program() -> bool:
    spec = getattr(sys.modules.get("__main__"), "__spec__", None)
    return getattr(spec, "name", None) == "reconciler.__main__"


def _run(*, quick: bool) -> None:
    try:
        main()
    except SystemExit as stop:
        if quick:
            _quick_exit(stop)
        raise


def command() -> None:
    """The installed `reconciler` script (pyproject.toml's console script): only that
    script calls it, so the process is the command's own and ends quickly too."""
    _run(quick=True)


if __name__ == "__main__":  # `python -m reconciler`
    _run(quick=_is_program())
