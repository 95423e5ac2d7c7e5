"""The status `python -m reconciler` and the installed script end with
(reconciler/__main__.py): what `sys.exit(code)` would give, for every kind of code a
command ends with, and Python's own exit kept where it prints the code."""

from __future__ import annotations

import subprocess
import sys

import pytest

from reconciler.__main__ import _status


@pytest.mark.parametrize(
    ("code", "status"),
    [
        (None, 0),
        (0, 0),
        (1, 1),
        (2, 2),  # plan --detailed-exitcode: changes
        (130, 130),  # interrupted
        (255, 255),
        (256, 0),  # as the operating system keeps it: the low byte
        (258, 2),
        (-1, 255),
        (True, None),  # not an int status: Python prints it and exits 1
        ("a message", None),
        (2.0, None),
    ],
)
def test_the_status_is_what_sys_exit_gives(code: object, status: int | None) -> None:
    assert _status(code) == status


def test_a_message_exit_prints_it_and_gives_status_1() -> None:
    code = (
        "import runpy, sys\n"
        "import reconciler.cli\n"
        "reconciler.cli.main = lambda: sys.exit('stopped: a message')\n"
        "sys.argv = ['reconciler']\n"
        "runpy.run_module('reconciler', run_name='__main__', alter_sys=True)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120)  # fmt: skip
    assert (done.returncode, done.stderr) == (1, "stopped: a message\n")
