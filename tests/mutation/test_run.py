"""The mutation runner's own logic: the seeded sample and the report's verdict (the
mutants themselves are run by mutmut, weekly in CI, not here)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

import tests.mutation.run as runner
from tests.mutation.run import configured_modules, mutant_names, report, sample

ORDER = Path("reconciler/planning/order.py")


def test_the_modules_are_those_of_the_configuration() -> None:
    modules = configured_modules()
    assert ORDER in modules
    assert Path("reconciler/clients/ratelimit.py") in modules
    assert all(m.suffix == ".py" for m in modules)
    assert Path("reconciler/cli/plan.py") not in modules


def test_a_sample_is_seeded_and_bounded_per_module() -> None:
    every = mutant_names(ORDER)
    first = sample([ORDER], 5, seed=1)
    assert len(first) == 5
    assert set(first) <= set(every)
    assert set(first.values()) == {ORDER}
    assert sample([ORDER], 5, seed=1) == first  # the same seed draws the same mutants
    assert set(sample([ORDER], 5, seed=2)) != set(first)
    assert set(sample([ORDER], 0, seed=1)) == set(every)  # 0: all of them


@pytest.mark.parametrize(
    ("statuses", "fail_under", "code", "total", "line"),
    [
        (["killed"] * 19 + ["survived"], 95.0, 0, "20 19 95.0%", "m19: survived"),
        (["killed"] * 18 + ["survived", "no tests"], 95.0, 1, "20 18 90.0%", "under 95.0% killed"),
        (["killed"] * 19 + ["timeout"], 100.0, 0, "20 20 100.0%", ""),  # a timeout is caught
        (["killed"] * 19 + ["not run"], 100.0, 1, "20 19 95.0%", "m19: not run"),
    ],
)
def test_the_report_scores_the_sample_and_fails_under_the_bar(
    capsys: pytest.CaptureFixture[str],
    statuses: list[str],
    fail_under: float,
    code: int,
    total: str,
    line: str,
) -> None:
    chosen = {f"m{i:02d}": ORDER for i in range(len(statuses))}
    status = {f"m{i:02d}": s for i, s in enumerate(statuses) if s != "not run"}
    assert report(chosen, status, fail_under) == code
    out = capsys.readouterr().out
    rows = {row.split()[0]: " ".join(row.split()[1:]) for row in out.splitlines() if row.strip()}
    assert rows["all"] == total
    assert rows[str(ORDER)] == total  # one module: its row is the total
    assert line in out
    assert ("not killed" in out) == (total.split()[0] != total.split()[1])


def test_the_record_of_which_tests_reach_what_goes_when_code_changed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "reconciler").mkdir()
    (tmp_path / "tests").mkdir()
    code = tmp_path / "reconciler" / "plan.py"
    for path in (tmp_path / "pyproject.toml", code, tmp_path / "tests" / "test_x.py"):
        path.write_text("")
        os.utime(path, (1000, 1000))
    stats = tmp_path / "mutants" / "mutmut-stats.json"
    stats.parent.mkdir()
    stats.write_text("{}")
    os.utime(stats, (2000, 2000))
    monkeypatch.setattr(runner, "ROOT", tmp_path)
    monkeypatch.setattr(runner, "STATS", stats)
    runner.forget_stale_stats()
    assert stats.exists()  # nothing newer: kept
    os.utime(code, (3000, 3000))
    runner.forget_stale_stats()
    assert not stats.exists()
    runner.forget_stale_stats()  # none recorded: nothing to do
