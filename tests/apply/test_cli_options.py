"""`reconciler apply` options refused before anything is read (no server needed)."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from reconciler.cli import main
from tests.apply.inprocess import EXAMPLE


@pytest.mark.parametrize("option", [["--prune"], ["--target", "assets"], ["--exclude", "users"]])
def test_a_saved_plan_takes_no_selection_or_prune(tmp_path: Path, option: list[str]) -> None:
    # The saved plan is what was reviewed: these options would silently change nothing.
    saved = tmp_path / "plan.json"
    saved.write_text("{}", encoding="utf-8")
    result = CliRunner().invoke(main, ["apply", str(EXAMPLE), "--plan", str(saved), *option])
    assert result.exit_code == 1
    assert "belong to the saved plan" in result.output and option[0] in result.output
