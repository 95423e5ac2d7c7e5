"""Apply waves (reconciler/fleet/rollout.py, rollout.py): `wave: N` per environment in
reconciler.yaml, all or none, checked at load with file:line; the waves a selection
applies in; and the summary an apply over several environments ends with."""

from __future__ import annotations

# ruff: noqa: E501  (a case is one line, whatever its length)
from pathlib import Path

import pytest

from reconciler.applying.executor import ApplyReport
from reconciler.errors import ManifestError
from reconciler.fleet.rollout import Applied, Result, Wave, apply_summary, waves
from reconciler.project import load_project


def project(tmp_path: Path, waves_of: dict[str, int | None]) -> Path:
    lines = ["environments:"]
    for name, wave in waves_of.items():
        lines += [f"  {name}:", "    paths: [baseline]"]
        if wave is not None:
            lines.append(f"    wave: {wave}")
    path = tmp_path / "reconciler.yaml"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


# (waves declared, the selection, the waves it applies in: (number, names) each)
WAVES = [
    (
        {"a": None, "b": None, "c": None},
        ["a", "b", "c"],
        [(None, ("a",)), (None, ("b",)), (None, ("c",))],
    ),
    ({"a": 2, "b": 1, "c": 2, "d": 1}, ["a", "b", "c", "d"], [(1, ("b", "d")), (2, ("a", "c"))]),
    ({"a": 2, "b": 1, "c": 2, "d": 1}, ["c", "a"], [(2, ("a", "c"))]),  # the project's order
    ({"a": 0, "b": 10, "c": 3}, ["a", "b", "c"], [(0, ("a",)), (3, ("c",)), (10, ("b",))]),
    ({"a": 1, "b": 1}, ["b"], [(1, ("b",))]),
]


@pytest.mark.parametrize(("declared", "selected", "expected"), WAVES)
def test_the_waves_a_selection_applies_in(
    tmp_path: Path,
    declared: dict[str, int | None],
    selected: list[str],
    expected: list[tuple[int | None, tuple[str, ...]]],
) -> None:
    found = waves(load_project(project(tmp_path, declared)), selected)
    assert [(wave.number, wave.names) for wave in found] == expected


# (project file text, the problems, as shown)
BAD_WAVES = [
    ("environments:\n  a:\n    paths: [x]\n    wave: 1\n  b:\n    paths: [x]\n  c:\n    paths: [x]\n",
     ["reconciler.yaml:5:3: environments.b: no wave, but other environments have one (a is in wave 1 at reconciler.yaml:2:3): give every environment a wave, or none",
      "reconciler.yaml:7:3: environments.c: no wave"]),
    ("environments:\n  a:\n    paths: [x]\n    wave: -1\n", ["reconciler.yaml:4:11: environments.a.wave: input should be greater than or equal to 0"]),
    ("environments:\n  a:\n    paths: [x]\n    wave: first\n", ["reconciler.yaml:4:11: environments.a.wave: input should be a valid integer"]),
    ("environments:\n  a:\n    paths: [x]\n    wave: 1001\n", ["reconciler.yaml:4:11: environments.a.wave: input should be less than or equal to 1000"]),
]  # fmt: skip


@pytest.mark.parametrize(("text", "expected"), BAD_WAVES)
def test_bad_waves_are_reported_at_their_line(
    tmp_path: Path, text: str, expected: list[str]
) -> None:
    path = tmp_path / "reconciler.yaml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ManifestError) as caught:
        load_project(path)
    shown = [p.replace(str(tmp_path) + "/", "") for p in caught.value.problems]
    assert len(shown) == len(expected)
    for said, wanted in zip(shown, expected, strict=True):
        assert said.startswith(wanted), said


def _applied(name: str, wave: Wave, result: Result, done: int = 0) -> Applied:
    report = (
        ApplyReport(done=[f'users["u{i}"]' for i in range(done)])
        if result is Result.APPLIED
        else None
    )
    return Applied(
        name, wave, result, report, seconds=0.25 if result is not Result.NOT_ATTEMPTED else 0.0
    )


ONE, TWO, NONE = Wave(1, ("acme", "globex")), Wave(2, ("initech",)), Wave(None, ("x",))
SUMMARIES = [
    (
        [_applied("acme", ONE, Result.APPLIED, 6), _applied("globex", ONE, Result.FAILED), _applied("initech", TWO, Result.NOT_ATTEMPTED)],
        ["environment  wave  result         changes  duration",
         "acme            1  applied              6      0.2s",
         "globex          1  failed               -      0.2s",
         "initech         2  not attempted        -         -",
         "Stopped after wave 1 (globex failed); not attempted: initech."],
    ),
    (
        [_applied("acme", NONE, Result.APPLIED, 1), _applied("globex", NONE, Result.UNCHANGED)],
        ["acme            -  applied                 1      0.2s",
         "globex          -  nothing to apply        -      0.2s",
         "Applied 2 environment(s): acme, globex."],
    ),
    (
        [_applied("acme", NONE, Result.FAILED), _applied("globex", NONE, Result.NOT_ATTEMPTED)],
        ["Stopped at environment acme; not attempted: globex."],
    ),
]  # fmt: skip


@pytest.mark.parametrize(("results", "lines"), SUMMARIES)
def test_the_apply_summary_says_what_was_applied_and_not_attempted(
    results: list[Applied], lines: list[str]
) -> None:
    shown = apply_summary(results).splitlines()
    for line in lines:
        assert line in shown, (line, shown)
