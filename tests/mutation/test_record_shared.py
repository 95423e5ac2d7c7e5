"""The record of which test runs which line, made by two pytest-xdist workers at once, is
the record one pytest makes: the same tests for each line (the lines children run
included), the same tests that start children, the same failed tests, a duration for
each test."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.mutation.run import ROOT
from tests.mutation.test_run import _fake_tree
from tests.mutation.workers import Selection, collect_contexts

# Besides the fake tree's test_cli.py (two tests running the CLI in child processes): a
# file of in-process tests, one of which fails, and a second file of child tests, so that
# each worker gets files of both kinds. Each test notes which worker ran it.
IN_PROCESS = """import os
import sys
from pathlib import Path

import pytest

from reconciler.cli import main


@pytest.fixture(autouse=True)
def _note() -> None:
    with open(os.environ["WHO_RAN"], "a") as out:
        out.write(os.environ.get("PYTEST_XDIST_WORKER", "serial") + "\\n")


def test_main_greets(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "argv", ["reconciler", "hello"])
    assert main() == 0


def test_main_refuses(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "argv", ["reconciler", "bye"])
    assert main() == 0  # fails: 2
"""


def _tree(root: Path) -> Path:
    tree = _fake_tree(root, "2")
    (tree / "test_in_process.py").write_text(IN_PROCESS)
    cli_tests = (tree / "test_cli.py").read_text()
    note = IN_PROCESS.split("\n\n\n")[1]  # the autouse fixture
    (tree / "test_cli.py").write_text(f"import os\nimport pytest\n{cli_tests}\n\n{note}\n")
    (tree / "test_cli_again.py").write_text((tree / "test_cli.py").read_text())
    return tree


def _record(tree: Path, jobs: int, who: Path, monkeypatch: pytest.MonkeyPatch) -> Selection:
    monkeypatch.setenv("WHO_RAN", str(who))
    where = tree / f"contexts-{jobs}"
    tests = ["test_cli.py", "test_in_process.py", "test_cli_again.py"]
    collect_contexts(tree, where, tests, [], jobs=jobs)
    assert not list(where.glob("gw*")) and not list(where.glob("python*"))  # cleaned up
    return Selection.load(tree, where)


def test_two_workers_record_what_one_pytest_records(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PYTHONPATH", str(ROOT))  # the plugin, tests.mutation.contexts
    tree = _tree(tmp_path / "tree")
    serial = _record(tree, 1, tmp_path / "serial", monkeypatch)
    shutil.rmtree(tree / "__pycache__", ignore_errors=True)
    shared = _record(tree, 2, tmp_path / "shared", monkeypatch)
    assert set((tmp_path / "serial").read_text().split()) == {"serial"}
    assert set((tmp_path / "shared").read_text().split()) == {"gw0", "gw1"}  # both worked

    cli = Path("reconciler/cli/__init__.py")
    assert shared.lines == serial.lines
    # What makes the comparison mean something: lines run only in children of tests of
    # either worker, under the test that started them; the failed test judges nothing.
    greets = {
        "test_cli.py::test_the_cli_greets",
        "test_cli_again.py::test_the_cli_greets",
        "test_in_process.py::test_main_greets",
    }
    assert shared.lines[cli][6] == greets
    refuses = {
        "test_cli.py::test_the_script_refuses_a_wrong_word",
        "test_cli_again.py::test_the_script_refuses_a_wrong_word",
    }
    assert shared.lines[cli][8] == refuses  # test_main_refuses failed
    assert (
        shared.spawning
        == serial.spawning
        == (greets | refuses) - {"test_in_process.py::test_main_greets"}
    )
    assert (
        set(shared.durations)
        == set(serial.durations)
        == greets | refuses | {"test_in_process.py::test_main_refuses"}
    )
