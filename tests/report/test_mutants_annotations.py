"""What reviewers see past the first findings: GitHub shows 10 annotations of each
severity a step (the 10th then counts the rest, in the noun of its severity); GitLab
keeps a finding repeated word for word as findings of their own, each with a fingerprint
that the next run gives again; the Code Quality file keeps text as written."""

from __future__ import annotations

import json

import pytest

from reconciler.plans import Action, BrakeVerdict, Change, Plan
from reconciler.report.annotations import code_quality, code_quality_json, github_commands
from reconciler.report.findings import (
    ERROR,
    NOTICE,
    WARNING,
    Finding,
    for_environment,
    from_plan,
    from_problems,
)


@pytest.mark.parametrize(
    ("severity", "command", "noun"),
    [(ERROR, "error", "errors"), (WARNING, "warning", "warnings"), (NOTICE, "notice", "notes")],
)
def test_past_ten_of_a_severity_the_tenth_counts_the_rest(
    severity: str, command: str, noun: str
) -> None:
    findings = [Finding(severity, "Plan", f"problem {n}") for n in range(12)]
    lines = github_commands(findings)
    assert lines[:9] == [f"::{command} title=Plan::problem {n}" for n in range(9)]
    assert lines[9:] == [
        f"::{command} title=3 more {noun}::3 more {noun} than GitHub shows for one step: "
        "see the job log."
    ]
    assert len(github_commands(findings[:10])) == 10  # ten are shown as they are


def test_a_repeated_finding_is_a_finding_of_its_own_with_a_stable_fingerprint() -> None:
    same = Finding(WARNING, "Plan warning", "two users share an e-mail", "people.yaml", 3)
    once = code_quality([same], "reconciler.yaml")
    thrice = code_quality([same, same, same], "reconciler.yaml")
    prints = [entry["fingerprint"] for entry in thrice]
    assert len(set(prints)) == 3
    assert prints[0] == once[0]["fingerprint"]  # the first is the finding seen alone
    assert prints == [e["fingerprint"] for e in code_quality([same] * 3, "other.yaml")]


def test_the_code_quality_file_keeps_text_as_written() -> None:
    text = code_quality_json([Finding(ERROR, "Plan error", "Zürich ≠ Zurich")], "m.yaml")
    assert '"description": "Plan error: Zürich ≠ Zurich"' in text
    assert json.loads(text)[0]["location"] == {"path": "m.yaml", "lines": {"begin": 1}}


def test_a_problem_without_a_place_is_a_finding_without_one() -> None:
    assert from_problems(["no manifest given"], ["a.yaml:2:5: a warning"]) == [
        Finding(ERROR, "Invalid manifest", "no manifest given"),
        Finding(WARNING, "Manifest warning", "a warning", "a.yaml", 2, 5),
    ]


@pytest.mark.parametrize(
    "removal",
    [
        Change("users", "bob", Action.delete, source="people.yaml:9"),
        Change("users", "bob", Action.disable, source="people.yaml:9"),
        Change("assets", "bob", Action.update, source="people.yaml:9", removal=True),
    ],
)
def test_the_brake_is_placed_on_the_first_removal_with_a_manifest_line(removal: Change) -> None:
    plan = Plan(
        (Change("users", "ann", Action.update, source="people.yaml:3"), removal),
        brake=BrakeVerdict(("would delete 1 of 2 users",)),
    ).to_dict()
    [finding] = from_plan(plan)
    assert (finding.file, finding.line) == ("people.yaml", 9)


def test_a_finding_with_a_file_but_no_line_is_placed_on_the_environment() -> None:
    [placed] = for_environment([Finding(ERROR, "Plan error", "x", "m.yaml")], "prod", "r.yaml:7:3")
    assert (placed.file, placed.line, placed.column, placed.environment) == ("r.yaml", 7, 3, "prod")
