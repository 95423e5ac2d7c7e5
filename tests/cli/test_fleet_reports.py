"""The per-pull-request reports of a run over several environments (cli/fleet_reports.py),
in-process: the comment directory holds exactly this run's parts (one directory per
environment, its error in a fence no line closes, the summary), each environment's parts
cut at 60,000 characters as one environment's are, and every finding names its
environment, placed on its line of the project file when it has no manifest line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from reconciler.fleet.plans import EnvironmentRun
from reconciler.fleet.reports import error_part, write_fleet_comments, write_fleet_findings
from reconciler.fleet.summary import summary_markdown
from reconciler.plans import Action, BrakeVerdict, Change, Plan, warning
from reconciler.render import markdown_parts
from tests.render.test_markdown_limit import users_plan

PLAN = Plan(changes=(Change("companies", "Acme", Action.create),), brake=BrakeVerdict())


def test_the_comment_directory_holds_exactly_this_runs_comments(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "1.md").write_text("a one-environment run's part", encoding="utf-8")
    (tmp_path / "gone").mkdir()
    (tmp_path / "gone" / "1.md").write_text("an environment no longer planned")
    (tmp_path / "kept").mkdir()
    (tmp_path / "kept" / "notes.txt").write_text("someone's own file")
    (tmp_path / "prod").mkdir()
    (tmp_path / "prod" / "2.md").write_text("an earlier, longer plan's part")
    runs = [EnvironmentRun("prod", plan=PLAN), EnvironmentRun("stage", error="refused")]
    write_fleet_comments(tmp_path, runs, "https://src")
    assert sorted(str(p.relative_to(tmp_path)) for p in tmp_path.rglob("*")) == [
        "kept", "kept/notes.txt", "prod", "prod/1.md", "stage", "stage/1.md", "summary.md",
    ]  # fmt: skip
    [part] = markdown_parts(PLAN, title="reconciler plan: environment prod",
                            source_url="https://src", limit=60_000)  # fmt: skip
    assert (tmp_path / "prod" / "1.md").read_text(encoding="utf-8") == part
    assert (tmp_path / "stage" / "1.md").read_text(encoding="utf-8") == (
        "## reconciler plan: environment stage\n\n**Error:** this environment could not be "
        "planned.\n\n```text\nrefused\n```\n"
    )
    assert (tmp_path / "summary.md").read_text(encoding="utf-8") == (
        "## reconciler plan: 2 environment(s)\n\n" + summary_markdown(runs)
    )
    assert capsys.readouterr().err == (
        f"Wrote the plans of 2 environment(s) in 2 comment part(s) to {tmp_path} (one "
        "directory each, and summary.md).\n"
    )


def test_an_environment_neither_planned_nor_failed_says_so(tmp_path: Path) -> None:
    write_fleet_comments(tmp_path, [EnvironmentRun("odd")], None)
    assert "```text\nnot planned\n```" in (tmp_path / "odd" / "1.md").read_text("utf-8")


def test_an_error_is_fenced_so_that_no_line_of_it_closes_the_fence() -> None:
    assert error_part("t", "a ```` b") == (
        "## t\n\n**Error:** this environment could not be planned.\n\n`````text\na ```` b\n`````\n"
    )
    long = error_part("t", "x" * 30_000)
    # Cut to 20,000 characters: its start and its end, the middle left out.
    shown = long.split("```text\n", 1)[1].removesuffix("\n```\n")
    assert shown == "x" * 13_333 + "..." + "x" * 6_664


def test_every_finding_names_its_environment(tmp_path: Path) -> None:
    quality = tmp_path / "cq.json"
    runs = [
        EnvironmentRun(
            "prod",
            plan=Plan(changes=(), warnings=(warning("odd value", location="m/a.yaml:4"),)),
        ),
        EnvironmentRun("stage", error="connection refused"),
        EnvironmentRun(
            "qa", error="2 problems", problems=["m/b.yaml:3:5: unknown field"],
            warnings=["m/b.yaml:1:1: deprecated"],
        ),
    ]  # fmt: skip
    where = {
        "prod": "reconciler.yaml:3:3",
        "stage": "reconciler.yaml:7:3",
        "qa": "reconciler.yaml:9:3",
    }
    write_fleet_findings("gitlab", quality, runs, where)
    found = [
        (i["severity"], i["location"]["path"], i["location"]["lines"]["begin"], i["description"])
        for i in json.loads(quality.read_text(encoding="utf-8"))
    ]
    assert found == [
        ("minor", "m/a.yaml", 4, "prod: Plan warning: odd value"),
        ("major", "reconciler.yaml", 7, "stage: reconciler failed: connection refused"),
        # Its problems are its error: not said twice.
        ("major", "m/b.yaml", 3, "qa: Invalid manifest: unknown field"),
        ("minor", "m/b.yaml", 1, "qa: Manifest warning: deprecated"),
    ]


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
