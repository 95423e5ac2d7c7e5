"""The suite's own guard: a test that leaves a child process running fails, and the
process is ended (tests/conftest.py)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import psutil
import pytest

pytest_plugins = ["pytester"]

CONFTEST = (Path(__file__).parents[1] / "conftest.py").read_text()

LEAKY = """
import subprocess, sys
import subprocess
import sys
from pathlib import Path

def test_leaves_a_child(tmp_path):
    proc = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)"])
    (Path(__file__).parent / "leaked.pid").write_text(str(proc.pid))

def test_cleans_up():
    proc = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)"])
    proc.terminate()
    proc.wait()
"""


def test_a_test_that_leaves_a_child_running_fails_and_the_child_is_ended(
    pytester: pytest.Pytester,
) -> None:
    pytester.makeconftest(CONFTEST)
    pytester.makepyfile(test_leaky=LEAKY)
    result = pytester.runpytest("-p", "no:cacheprovider", "-p", "no:xdist")
    result.assert_outcomes(passed=2, errors=1)
    result.stdout.fnmatch_lines(
        ["*test_leaky.py::test_leaves_a_child left child processes running (killed now):*"]
    )
    pid = int((pytester.path / "leaked.pid").read_text())
    assert not psutil.pid_exists(pid) or psutil.Process(pid).status() == psutil.STATUS_ZOMBIE


def test_a_process_that_outlives_its_parent_fails_the_run(pytester: pytest.Pytester) -> None:
    """A grandchild re-parented to init is no longer pytest's child; the marker in its
    environment still finds it at the end of the run."""
    pytester.makeconftest(CONFTEST)
    pytester.makepyfile(
        test_orphan="""
import subprocess, sys
import subprocess
import sys
from pathlib import Path

def test_orphan():
    # The child starts a grandchild and ends at once: the grandchild is re-parented.
    code = ("import subprocess, sys; "
            "p = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(120)'], "
            "stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL); "
            "print(p.pid)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    (Path(__file__).parent / "orphan.pid").write_text(out.stdout.strip())
"""
    )
    result = pytester.runpytest("-p", "no:cacheprovider", "-p", "no:xdist")
    result.assert_outcomes(passed=1, errors=1)
    result.stdout.fnmatch_lines(["*were still running at its end (killed now):*"])
    pid = int((pytester.path / "orphan.pid").read_text())
    assert not psutil.pid_exists(pid) or psutil.Process(pid).status() == psutil.STATUS_ZOMBIE


def test_the_guard_lists_the_same_descendants_as_psutil() -> None:
    """The guard reads /proc's per-thread children files (cheap); psutil scans every
    process: both must name the same child and grandchild."""
    from tests.conftest import _child_pids, _children

    code = (
        "import subprocess, sys, time; "
        "subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(120)']); "
        "print('started', flush=True); time.sleep(120)"
    )
    proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None and proc.stdout.readline() == "started\n"
        expected = {p.pid for p in psutil.Process().children(recursive=True)}
        assert len(expected) == 2 and proc.pid in expected
        assert set(_child_pids()) == expected
        assert {p.pid for p in _children()} == expected
    finally:
        descendants = psutil.Process(proc.pid).children(recursive=True)
        for process in (proc, *descendants):
            process.kill()
        proc.communicate()
        psutil.wait_procs(descendants, timeout=10)
