"""How `python -m reconciler` and the installed script end (reconciler/__main__.py): with
the command's status and everything it printed; the exit handlers run, a thread still
alive is waited for, and a message given as the status is printed with status 1."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import reconciler


def run(code: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)


def as_program(*args: str, before: str = "") -> str:
    """`python -m reconciler ARGS`, with `before` run first in the same process."""
    return (
        f"import runpy, sys\n{before}\n"
        f"sys.argv = ['reconciler', *{list(args)!r}]\n"
        "runpy.run_module('reconciler', run_name='__main__', alter_sys=True)\n"
    )


def test_the_output_and_status_of_a_command_are_kept() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "reconciler", "--version"], capture_output=True, text=True,
        timeout=120,
    )  # fmt: skip
    assert done.returncode == 0
    assert done.stdout == f"reconciler, version {reconciler.__version__}\n"


def test_a_usage_error_keeps_its_status_and_message() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "reconciler", "--no-such-option"], capture_output=True,
        text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 1
    assert "no-such-option" in done.stderr


def test_exit_handlers_still_run_after_the_command() -> None:
    done = run(as_program("--version", before="import atexit\natexit.register(print, 'bye')"))
    assert done.returncode == 0
    assert done.stdout == f"reconciler, version {reconciler.__version__}\nbye\n"


def test_a_thread_still_alive_is_waited_for() -> None:
    # The thread prints once the main thread has ended (Python's exit releases it before
    # waiting for the other threads), whatever the load: an exit that did not wait for
    # it would end the process with the line never printed.
    thread = (
        "import threading\n"
        "def late():\n"
        "    threading.main_thread().join()\n"
        "    print('thread done', flush=True)\n"
        "threading.Thread(target=late).start()"
    )
    done = run(as_program("--version", before=thread))
    assert done.returncode == 0
    assert done.stdout.endswith("thread done\n")


def test_the_installed_script_keeps_the_status_and_everything_printed() -> None:
    script = Path(sys.executable).with_name("reconciler")
    done = subprocess.run(
        [str(script), "--no-such-option"], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 1
    assert "no-such-option" in done.stderr
    done = subprocess.run([str(script), "--version"], capture_output=True, text=True, timeout=120)
    assert (done.returncode, done.stdout) == (0, f"reconciler, version {reconciler.__version__}\n")


def test_the_installed_script_completes_a_command_for_the_shell() -> None:
    """click's shell completion writes its answer as bytes, through the masking of output."""
    script = Path(sys.executable).with_name("reconciler")
    env = {**os.environ, "_RECONCILER_COMPLETE": "bash_complete"}
    env |= {"COMP_WORDS": "reconciler pl", "COMP_CWORD": "1"}
    done = subprocess.run([str(script)], capture_output=True, text=True, timeout=120, env=env)
    assert (done.returncode, done.stdout, done.stderr) == (0, "plain,plan\n", "")


def test_a_message_as_the_status_is_printed_and_gives_status_1() -> None:
    stop = "import reconciler.cli\nreconciler.cli.main = lambda: sys.exit('stopped: a message')"
    done = run(as_program(before=stop))
    assert (done.returncode, done.stderr) == (1, "stopped: a message\n")
