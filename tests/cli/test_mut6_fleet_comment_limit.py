"""A fleet run's comment parts (`--comment-dir` over several environments) are cut at
60,000 characters, as one environment's are: the longest plan one comment holds is one
part, one character more is two, in the environment's directory."""

from __future__ import annotations

from pathlib import Path

import pytest

from reconciler.fleet.plans import EnvironmentRun
from reconciler.fleet.reports import write_fleet_comments
from tests.render.test_mut6_markdown_limit import users_plan


@pytest.mark.parametrize(("last", "lengths"), [(62, [59_974]), (63, [59_894, 217])])
def test_an_environments_plan_takes_a_second_part_past_the_limit(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], last: int, lengths: list[int]
) -> None:
    write_fleet_comments(tmp_path, [EnvironmentRun("prod", plan=users_plan(last))], None)
    parts = sorted((tmp_path / "prod").glob("*.md"))
    assert [len(p.read_text(encoding="utf-8")) for p in parts] == lengths
    first = parts[0].read_text(encoding="utf-8")
    heading = "## reconciler plan: environment prod"
    assert first.startswith(heading + ("\n\n" if len(lengths) == 1 else " (part 1 of 2)\n\n"))
    assert capsys.readouterr().err == (
        f"Wrote the plans of 1 environment(s) in {len(lengths)} comment part(s) to "
        f"{tmp_path} (one directory each, and summary.md).\n"
    )
