"""The mutation runner's own logic: the mutants it makes, the seeded sample over every
module, the tests it picks for a mutant, one mutant run in a tree, and the verdict (the
samples themselves run weekly in CI, not here)."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.mutation.contexts import IMPORT
from tests.mutation.mutants import mutants_of, read_mutants
from tests.mutation.report import report, summary
from tests.mutation.run import ROOT, modules, timings
from tests.mutation.sample import allocation, judging_order, sample
from tests.mutation.workers import Selection, Server, _copy, bound, collect_contexts

ORDER = Path("reconciler/planning/order.py")
SOURCE = b'''"""Doc."""
from __future__ import annotations

LIMIT = 3


def over(count: int, names: list[str]) -> bool:
    """Doc."""
    if count > LIMIT and not names:
        raise ValueError("too many")  # pragma: no mutate
    names.append("x")
    return count >= 1
'''


def test_the_modules_are_all_of_the_package_but_the_sandbox() -> None:
    found = modules()
    assert ORDER in found
    assert Path("reconciler/applying/lock.py") in found
    assert Path("reconciler/plan.py") in found
    assert not [m for m in found if m.parts[:2] == ("reconciler", "sandbox")]


def test_the_mutants_of_a_module_change_one_place_each() -> None:
    found = mutants_of(Path("m.py"), SOURCE)
    changed = {(m.line, m.what) for m in found}
    assert (9, "comparison to `>=`") in changed
    assert (9, "comparison to `<=`") in changed
    assert (9, "`or`") in changed
    assert (9, "`not` dropped") in changed
    assert (11, "call removed") in changed
    assert (12, "`return None`") in changed
    assert (4, "`4`") in changed
    assert not [m for m in found if m.line == 10]  # the pragma
    assert not [m for m in found if m.line in (1, 2, 8)]  # docstrings, imports
    assert not [m for m in found if m.what == "string changed" and m.line != 11]
    for mutant in found:
        mutated = mutant.apply(SOURCE)
        assert mutated != SOURCE
        compile(mutated, "m.py", "exec")  # each mutant is valid Python
        assert mutated.count(b"\n") == SOURCE.count(b"\n")
    drop = next(m for m in found if m.what == "call removed")
    assert drop.apply(SOURCE).splitlines()[10] == b"    pass"
    assert "-    names.append" in drop.diff(SOURCE)


def test_a_dataclass_keeps_its_frozen_flag_and_loses_its_other_flags() -> None:
    source = b"@dataclass(frozen=True, order=True)\nclass Point:\n    x: int = 0\n"
    changed = {m.what for m in mutants_of(Path("m.py"), source) if m.line == 1}
    assert changed == {"argument `order` dropped", "`False`"}
    (flipped,) = [m for m in mutants_of(Path("m.py"), source) if m.what == "`False`"]
    assert flipped.apply(source).startswith(b"@dataclass(frozen=True, order=False)")


def test_every_module_of_the_package_gives_valid_mutants() -> None:
    for module in modules():
        source = (ROOT / module).read_bytes()
        for mutant in read_mutants(ROOT, module)[::25]:  # a spread of each kind of change
            compile(mutant.apply(source), str(module), "exec")


def test_the_sample_reaches_every_module_and_weighs_them_by_size() -> None:
    sizes = {Path("a.py"): 100, Path("b.py"): 10, Path("c.py"): 1, Path("d.py"): 0}
    share = allocation(sizes, 20)
    assert sum(share.values()) == 20
    assert share[Path("c.py")] == 1
    assert share[Path("a.py")] > 5 * share[Path("b.py")] > 0
    assert Path("d.py") not in share  # nothing to mutate
    assert allocation(sizes, 0) == {Path("a.py"): 100, Path("b.py"): 10, Path("c.py"): 1}
    with pytest.raises(ValueError, match="cannot reach all 3 modules"):
        allocation(sizes, 2)


def test_a_sample_is_seeded() -> None:
    every = {ORDER: read_mutants(ROOT, ORDER), Path("m.py"): mutants_of(Path("m.py"), SOURCE)}
    first = sample(every, 12, seed=1)
    assert len(first) == 12
    assert {m.module for m in first} == {ORDER, Path("m.py")}
    assert sample(every, 12, seed=1) == first  # the same seed draws the same mutants
    assert sample(every, 12, seed=2) != first


def test_a_sample_is_judged_in_a_seeded_order_that_mixes_the_modules() -> None:
    every = {m: read_mutants(ROOT, m) for m in modules()}
    chosen = sample(every, 200, 7)
    order = judging_order(chosen, 7)
    assert sorted(m.name for m in order) == sorted(m.name for m in chosen)
    assert [m.name for m in judging_order(chosen, 7)] == [m.name for m in order]
    assert [m.name for m in judging_order(chosen, 8)] != [m.name for m in order]
    # A run cut short after a quarter has judged mutants of many packages, not of the
    # first ones in alphabetical order (applying/, changes/, cli/ ...).
    packages = {m.module.parts[1] for m in order[:50] if len(m.module.parts) > 2}
    assert len(packages) >= 8


def test_a_mutant_runs_the_tests_of_its_line_a_top_level_one_those_of_its_module_first() -> None:
    found = mutants_of(Path("m.py"), SOURCE)
    lines = {4: {IMPORT}, 9: {"t::a", "t::b"}, 11: {"t::b"}, 12: {"t::c"}}
    selection = Selection({Path("m.py"): lines}, {"t::a": 2.0, "t::b": 1.0, "t::c": 0.5})
    append = next(m for m in found if m.line == 11)
    assert selection.tests_for(append) == ["t::b"]
    compare = next(m for m in found if m.line == 9)
    assert selection.tests_for(compare) == ["t::b", "t::a"]  # the fastest first
    limit = next(m for m in found if m.line == 4)
    assert selection.tests_for(limit) == ["t::c", "t::b", "t::a"]
    selection.durations["u::other"] = 0.1  # runs no line of the module: after its own tests
    assert selection.tests_for(limit) == ["t::c", "t::b", "t::a", "u::other"]
    assert selection.tests_for(append) == ["t::b"]
    assert Selection({}, {}).tests_for(limit) == []
    # A test that starts children (the CLI) judges the lines its children ran, top-level
    # ones too, but not a top-level line run at import in-process: every child imports
    # nearly every module, and a surviving top-level mutant would run them all.
    lines[12].add("e2e::cli")
    lines[4].add("e2e::cli")
    selection.durations["e2e::cli"] = 30.0
    selection.spawning.add("e2e::cli")
    assert selection.tests_for(append) == ["t::b"]
    assert selection.tests_for(next(m for m in found if m.line == 12)) == ["t::c", "e2e::cli"]
    assert selection.tests_for(limit) == ["t::c", "t::b", "t::a", "u::other"]
    only_in_children = Selection({Path("m.py"): {4: {"e2e::cli"}}}, {"e2e::cli": 30.0})
    assert only_in_children.tests_for(limit) == ["e2e::cli"]  # as __main__.py's


@pytest.mark.parametrize(
    ("check", "outcome"),
    [
        ("assert over(1, [])", "survived"),
        ("with pytest.raises(ValueError):\n        over(5, [])", "killed"),
    ],
)
def test_one_mutant_is_judged_by_its_tests_and_the_tree_is_restored(
    tmp_path: Path, check: str, outcome: str
) -> None:
    (tmp_path / "m.py").write_bytes(SOURCE.replace(b"  # pragma: no mutate", b""))
    (tmp_path / "test_m.py").write_text(
        f"import pytest\nfrom m import over\n\n\ndef test_it() -> None:\n    {check}\n"
    )
    source = (tmp_path / "m.py").read_bytes()
    found = mutants_of(Path("m.py"), source)
    raise_removed = next(m for m in found if m.what == "statement removed")
    server = Server(tmp_path)
    try:
        assert server.judge(raise_removed, ["test_m.py::test_it"], 300) == outcome
        assert (tmp_path / "m.py").read_bytes() == source
        assert server.judge(raise_removed, [], 300) == "no tests"
        assert server.judge(raise_removed, ["test_m.py::test_it"], 300) == outcome  # again
    finally:
        server.close()


GATE = b'''"""Doc."""
from __future__ import annotations

import threading

OPEN = threading.Event()


def through() -> str:
    """Doc."""
    OPEN.set()
    OPEN.wait()
    return "through"
'''


def test_a_mutant_that_makes_a_test_wait_for_ever_is_a_timeout_at_that_tests_bound(
    tmp_path: Path,
) -> None:
    """The gate never opened: the test would wait for ever. Its bound (one second) ends its
    pytest, and the servers it started with it, long before the selection's timeout."""
    (tmp_path / "g.py").write_bytes(GATE)
    (tmp_path / "test_g.py").write_text(
        "import os, subprocess, sys\nfrom g import through\n\n\ndef test_it() -> None:\n"
        "    server = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(600)'])\n"
        "    open('server.pid', 'w').write(str(server.pid))\n"
        "    try:\n        assert through() == 'through'\n    finally:\n        server.kill()\n"
    )
    closed = next(m for m in mutants_of(Path("g.py"), GATE) if m.what == "call removed")
    assert b"OPEN.set()" not in closed.apply(GATE)
    server = Server(tmp_path)
    try:
        started = time.monotonic()
        outcome = server.judge(closed, ["test_g.py::test_it"], 300, {"test_g.py::test_it": 1.0})
        assert outcome == "timeout"
        assert time.monotonic() - started < 300  # its bound, not the selection's timeout
        left = Path(f"/proc/{int((tmp_path / 'server.pid').read_text())}/stat")
        for _ in range(100):  # killed with its process group, then reaped by whoever adopted it
            if not left.exists() or left.read_text().split(") ")[1].startswith("Z"):
                break
            time.sleep(0.05)
        assert not left.exists() or left.read_text().split(") ")[1].startswith("Z")
    finally:
        server.close()


def test_each_test_is_bounded_by_five_times_its_recorded_time_and_a_minute() -> None:
    assert bound(0.5) == 62.5
    assert bound(30.0) == 210.0


def test_the_report_scores_each_module_and_fails_under_either_bar(
    capsys: pytest.CaptureFixture[str],
) -> None:
    found = read_mutants(ROOT, ORDER)[:20]
    status = {m.name: "killed" for m in found}
    assert report(found, status, 95.0, 2, seed=7) == 0
    status[found[0].name] = "survived"
    assert report(found, status, 95.0, 2, seed=7) == 0  # 19 of 20: 95 %
    del status[found[1].name]  # not run counts as not caught
    assert report(found, status, 95.0, 2, seed=7) == 1
    out = capsys.readouterr().out
    assert f"{ORDER!s:52}      20     18   90.0%" in out and "under 95.0% caught" in out
    assert f"{found[1].name} ({found[1].what}): not run" in out
    status[found[1].name] = "timeout"  # an endless loop the tests notice
    assert report(found, status, 90.0, 0, seed=7) == 1
    assert f"more than 0 survivors in {ORDER}" in capsys.readouterr().out
    status[found[2].name] = "no tests"  # no test runs its line
    report(found, status, 90.0, 2, seed=7)
    out = capsys.readouterr().out
    assert f"{ORDER!s:52}      20     18   90.0%        1" in out
    assert "of the 19 mutants some test runs: 18 caught (94.7%)" in out
    status[found[2].name] = "killed"
    text = summary(found, status, seed=7)
    assert "seed 7" in text and "19 of 20 mutants caught (95.0 %)" in text
    assert f"| `{ORDER}` | 19 of 20 | `{found[0].line}` {found[0].what} |" in text


def test_the_command_reports_a_sample_it_ran_before(tmp_path: Path) -> None:
    options = ["--module", str(ORDER), "--sample", "3", "--seed", "5", "--report-only"]
    options += ["--no-diffs", "--fail-under", "0", "--max-per-module", "3"]
    done = subprocess.run(
        [sys.executable, "-m", "tests.mutation.run", *options, "--summary", str(tmp_path / "s.md")],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert str(ORDER) in done.stdout
    assert "## Mutation testing, seed 5" in (tmp_path / "s.md").read_text()


# A tiny tree whose "CLI" the test runs in a child process, as the end-to-end tests do:
# `sys.executable -m reconciler` and the `reconciler` script beside `sys.executable`, from
# another folder, with an environment built from scratch (no PYTHONPATH, no coverage
# variable), as the bad-input table and the CI recipes build theirs.
FAKE_CLI = b"""import sys


def main() -> int:
    if sys.argv[1:] == ["hello"]:
        print("hello, user")
        return 0
    print("usage: reconciler hello", file=sys.stderr)
    return 2
"""
FAKE_TEST = """import subprocess
import sys
import time
from pathlib import Path


def run(*command: str, where: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(command, cwd=where, env={}, capture_output=True, text=True)


def test_the_cli_greets(tmp_path: Path) -> None:
    done = run(sys.executable, "-m", "reconciler", "hello", where=tmp_path)
    assert (done.returncode, done.stdout) == (0, "hello, user\\n")


def test_the_script_refuses_a_wrong_word(tmp_path: Path) -> None:
    script = str(Path(sys.executable).with_name("reconciler"))
    done = run(script, "bye", where=tmp_path)
    assert done.returncode == CODE
"""


def _fake_tree(root: Path, code: str) -> Path:
    (root / "reconciler" / "cli").mkdir(parents=True)
    (root / "reconciler" / "__init__.py").write_text("")
    (root / "reconciler" / "__main__.py").write_text(
        "import sys\n\nfrom reconciler.cli import main\n\nsys.exit(main())\n"
    )
    (root / "reconciler" / "cli" / "__init__.py").write_bytes(FAKE_CLI)
    (root / "pyproject.toml").write_text("")
    (root / "test_cli.py").write_text(FAKE_TEST.replace("CODE", code))
    return root


def test_the_record_follows_the_child_processes_of_each_test(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    tree = _fake_tree(tmp_path / "tree", "2")
    monkeypatch.setenv("PYTHONPATH", str(ROOT))  # the plugin, tests.mutation.contexts
    collect_contexts(tree, tree / "contexts", ["test_cli.py"], [])
    selection = Selection.load(tree, tree / "contexts")
    cli = selection.lines[Path("reconciler/cli/__init__.py")]
    greets, refuses = (
        "test_cli.py::test_the_cli_greets",
        "test_cli.py::test_the_script_refuses_a_wrong_word",
    )
    assert cli[5] == {greets, refuses}  # `if sys.argv[1:] == ...`, in both children
    assert cli[6] == {greets}  # the greeting, only in the child of the first test
    assert cli[8] == {refuses}
    assert selection.spawning == {greets, refuses}
    assert not list((tree / "contexts").glob("coverage.sqlite.*"))  # combined into one


@pytest.mark.parametrize(("code", "outcome"), [("2", "killed"), ("2 or True", "survived")])
def test_a_mutant_of_the_cli_is_judged_by_a_test_that_runs_it_in_a_child(
    tmp_path: Path, code: str, outcome: str
) -> None:
    """The mutant (the refusal's exit code, 2 to 3) is in the copy's CLI; the test's child
    imports the copy, whatever its environment, and so fails, unless the test does not
    look at the exit code."""
    tree = tmp_path / "copy"
    python = _copy(_fake_tree(tmp_path / "tree", code), tree, tmp_path / "python", ["test_cli.py"])
    # The test file compiled as pytest rewrites it, once: no mutant's pytest does it again.
    assert list((tree / "__pycache__").glob("test_cli.*-pytest-*.pyc"))
    source = (tree / "reconciler/cli/__init__.py").read_bytes()
    found = mutants_of(Path("reconciler/cli/__init__.py"), source)
    exit_code = next(m for m in found if m.line == 9 and m.what == "`3`")
    greeting = next(m for m in found if m.line == 6 and m.what == "string changed")
    server = Server(tree, python)
    try:
        script_test = ["test_cli.py::test_the_script_refuses_a_wrong_word"]
        assert server.judge(exit_code, script_test, 300) == outcome
        assert server.judge(greeting, ["test_cli.py::test_the_cli_greets"], 300) == "killed"
        assert (tree / "reconciler/cli/__init__.py").read_bytes() == source
    finally:
        server.close()


def test_the_time_is_split_into_recording_and_judging() -> None:
    line = timings(40, recorded=1200.4, judged=1800.0, jobs=2)
    assert line == (
        "40 mutants in 3000 s: recording 1200 s, judging 1800 s with 2 jobs,"
        " 90 s of a job per mutant"
    )
    assert timings(0, 5.0, 0.0, 1) == "0 mutants in 5 s: recording 5 s, judging 0 s with 1 jobs"
