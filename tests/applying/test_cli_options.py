"""`reconciler apply` options refused before anything is read (no server needed)."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from reconciler.cli import main
from reconciler.plans import Plan
from reconciler.plans.planfile import PlanInputs, write_plan_file
from tests.applying.inprocess import EXAMPLE

MADE_WITH = PlanInputs("sha256:" + "0" * 64, prune=True, targets=("assets",))


@pytest.mark.parametrize(
    "option",
    [
        ["--target", "users"],  # another selection than the saved plan's
        ["--exclude", "users"],
    ],
)
def test_flags_contradicting_the_saved_plan_are_refused(tmp_path: Path, option: list[str]) -> None:
    # The saved plan's flags are those it was reviewed with; others would make another plan.
    saved = tmp_path / "plan.json"
    write_plan_file(saved, Plan((), live_digest="sha256:x"), MADE_WITH)
    result = CliRunner().invoke(main, ["apply", str(EXAMPLE), "--plan", str(saved), *option])
    assert result.exit_code == 1
    assert "contradict the saved plan" in result.output and option[0] in result.output
    assert "--prune --target assets" in result.output


def test_a_file_without_what_it_was_made_from_is_refused(tmp_path: Path) -> None:
    saved = tmp_path / "plan.json"
    saved.write_text(
        '{"format_version": 1, "summary": {"create": 0, "update": 0, "delete": 0, '
        '"enable": 0, "disable": 0}, "changes": [], "warnings": [], "errors": [], '
        '"live_digest": "sha256:x"}',
        encoding="utf-8",
    )
    result = CliRunner().invoke(main, ["apply", str(EXAMPLE), "--plan", str(saved)])
    assert result.exit_code == 1
    assert "made_from: missing" in result.output and "Traceback" not in result.output
