"""`reconciler plan` makes the plan's JSON at most once, and only when something uses it
(issue 25: 38-46 ms for a 1,105-change plan, made twice on every run before): the
findings when annotations or --codequality write them, the reports when one is asked
for. In process, against the embedded sandbox, the plan's conversion counted."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from reconciler.cli import main
from reconciler.plans import Plan

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "acme"
CI_VARIABLES = ("GITHUB_ACTIONS", "GITLAB_CI", "GITHUB_STEP_SUMMARY")


@pytest.fixture
def conversions(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> list[int]:
    for name in CI_VARIABLES:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.chdir(tmp_path)  # --sandbox keeps its state under the working directory
    shutil.copytree(EXAMPLE, tmp_path / "acme")
    made: list[int] = []
    original = Plan.to_dict

    def counted(self: Plan) -> dict[str, Any]:
        made.append(len(self.changes))
        return original(self)

    monkeypatch.setattr(Plan, "to_dict", counted)
    return made


def plan(*args: str) -> str:
    result = CliRunner().invoke(main, ["plan", "acme", "--sandbox", *args])
    assert result.exit_code == 0, result.output
    return result.stdout


def test_nothing_asks_for_the_json_so_it_is_not_made(conversions: list[int]) -> None:
    plan()
    plan("--annotations", "gitlab")  # GitLab's findings go only to --codequality
    assert conversions == []


@pytest.mark.parametrize(
    "args",
    [("--junit", "j.xml"), ("--html", "p.html"), ("--job-summary", "s.md"),
     ("--codequality", "q.json"), ("--annotations", "github")],
)  # fmt: skip
def test_one_use_makes_it_once(conversions: list[int], args: tuple[str, ...]) -> None:
    plan(*args)
    assert len(conversions) == 1


def test_findings_and_every_report_share_one(
    conversions: list[int], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    plan("--codequality", "q.json", "--junit", "j.xml", "--html", "p.html",
         "--job-summary", "s.md")  # fmt: skip
    assert len(conversions) == 1
    for name in ("q.json", "j.xml", "p.html", "s.md"):
        assert Path(name).stat().st_size > 0


def test_the_printed_json_shares_it_with_the_reports(conversions: list[int]) -> None:
    alone = plan("--format", "json")
    assert len(conversions) == 1
    with_report = plan("--format", "json", "--junit", "j.xml")
    assert len(conversions) == 2  # one more run, one more conversion, not two
    assert json.loads(with_report) == json.loads(alone)  # the same plan, printed whole
    assert json.loads(alone)["changes"]
