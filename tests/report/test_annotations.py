"""Every kind of diagnostic as GitHub workflow commands and as GitLab's Code Quality
report, compared with the golden files in golden/ (RECONCILER_UPDATE_GOLDEN=1 rewrites
them; review the difference before committing it)."""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

from reconciler import masking
from reconciler.cli import main
from reconciler.plans import Action, BrakeVerdict, Change, Plan
from reconciler.report.annotations import (
    code_quality,
    code_quality_json,
    default_platform,
    escape_data,
    escape_property,
    github_commands,
)
from reconciler.report.findings import (
    ERROR,
    NOTICE,
    WARNING,
    Finding,
    for_environment,
    from_plan,
    from_problems,
)
from tests.report.plans import every_diagnostic

GOLDEN = Path(__file__).parent / "golden"
SECRET = "s3cr3t-t0ken-value"


def golden(name: str, text: str) -> None:
    path = GOLDEN / name
    if os.environ.get("RECONCILER_UPDATE_GOLDEN"):
        path.parent.mkdir(exist_ok=True)
        path.write_text(text, encoding="utf-8")
    assert text == path.read_text(encoding="utf-8"), f"differs from {path}"


@pytest.fixture
def masked() -> Iterator[None]:
    masking.install({"HELPDESK_TOKEN": SECRET})
    yield
    masking.install({})


def over_the_limit() -> list[Finding]:
    where = {"file": "manifests/people.yaml", "column": 3}
    return (
        [Finding(ERROR, "Invalid manifest", f"error {n}", line=n, **where) for n in range(1, 13)]
        + [
            Finding(WARNING, "Manifest warning", f"warning {n}", line=n, **where)
            for n in range(1, 11)
        ]
        + [Finding(NOTICE, "Plan note", f"note {n}", line=n, **where) for n in range(1, 4)]
    )


def escaped() -> list[Finding]:
    return [
        Finding(
            ERROR, "Plan error: 100%, really", "50% off\r\nnext line: a, b", "m/a,b:c%.yaml", 7, 1
        ),
        Finding(WARNING, f"about {SECRET}", f"the token {SECRET} leaked", f"m/{SECRET}.yaml", 2, 4),
    ]


CASES: dict[str, Callable[[], list[Finding]]] = {
    "plan-diagnostics": lambda: from_plan(every_diagnostic()),
    "over-the-limit": over_the_limit,
    "escaped-and-masked": escaped,
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_findings_on_both_platforms(case: str, masked: None) -> None:
    findings = CASES[case]()
    golden(f"{case}.github.txt", "\n".join(github_commands(findings)) + "\n")
    golden(f"{case}.codequality.json", code_quality_json(findings, "manifests"))
    assert SECRET not in code_quality_json(findings, "manifests")
    assert SECRET not in "\n".join(github_commands(findings))


def test_the_step_limit_keeps_ten_of_each_severity() -> None:
    lines = github_commands(over_the_limit())
    assert [line.split(" ", 1)[0] for line in lines].count("::error") == 10
    assert lines[9] == (
        "::error title=3 more errors::"
        "3 more errors than GitHub shows for one step: see the job log."
    )
    assert [line.split(" ", 1)[0] for line in lines].count("::warning") == 10  # exactly 10
    assert "more warnings" not in "\n".join(lines)


def test_escaping_round_trips_as_the_runner_unescapes() -> None:
    # The runner's unescaping (actions/runner ActionCommand): the reverse, in this order.
    def unescape(text: str) -> str:
        for escaped_form, char in (
            ("%0D", "\r"),
            ("%0A", "\n"),
            ("%3A", ":"),
            ("%2C", ","),
            ("%25", "%"),
        ):
            text = text.replace(escaped_form, char)
        return text

    for text in ["100%25 literal", "a:b,c\r\nd%", "%3A is not a colon"]:
        assert unescape(escape_property(text)) == text
        assert "," not in escape_property(text) and ":" not in escape_property(text)
        assert "\n" not in escape_data(text)


@pytest.mark.parametrize(
    ("env", "platform"),
    [
        ({"GITHUB_ACTIONS": "true"}, "github"),
        ({"GITLAB_CI": "true"}, "gitlab"),
        ({}, "none"),
        ({"GITHUB_ACTIONS": "false"}, "none"),
    ],
)
def test_the_platform_defaults_from_the_ci(env: dict[str, str], platform: str) -> None:
    assert default_platform(env) == platform


VALIDATE_CASES = {
    "validate-error": (
        "companies:\n  - name: Acme, Inc\n    bogus: 1\n  - name: Globex\n    notes: [1]\n"
    ),
    "validate-warning": "companies:\n  - name: Acme\n    email_domains: [acme.com, acme.com]\n",
}


@pytest.mark.parametrize("case", sorted(VALIDATE_CASES))
def test_validate_annotates_on_both_platforms(
    case: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "manifests").mkdir()
    (tmp_path / "manifests" / "companies.yaml").write_text(VALIDATE_CASES[case], encoding="utf-8")
    failing = case.endswith("error")
    github = CliRunner().invoke(
        main, ["validate", "manifests"], env={"GITHUB_ACTIONS": "true", "GITLAB_CI": ""}
    )
    assert github.exit_code == (1 if failing else 0), github.output
    commands = [line for line in github.output.splitlines() if line.startswith("::")]
    golden(f"{case}.github.txt", "\n".join(commands) + "\n")
    gitlab = CliRunner().invoke(
        main,
        ["validate", "manifests", "--codequality", "gl-code-quality.json"],
        env={"GITHUB_ACTIONS": "", "GITLAB_CI": "true"},
    )
    assert gitlab.exit_code == github.exit_code
    assert "::" not in gitlab.output  # GitLab gets the file, not workflow commands
    report = (tmp_path / "gl-code-quality.json").read_text(encoding="utf-8")
    golden(f"{case}.codequality.json", report)
    assert json.loads(report)  # one entry at least


def test_no_annotations_outside_ci(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "c.yaml").write_text(VALIDATE_CASES["validate-error"], encoding="utf-8")
    result = CliRunner().invoke(
        main, ["validate", "c.yaml"], env={"GITHUB_ACTIONS": "", "GITLAB_CI": ""}
    )
    assert result.exit_code == 1 and "::error" not in result.output
    forced = CliRunner().invoke(
        main, ["validate", "c.yaml", "--annotations", "github"], env={"GITHUB_ACTIONS": ""}
    )
    assert "::error file=c.yaml,line=3,col=5,title=Invalid manifest::" in forced.output
    clean = CliRunner().invoke(
        main,
        ["validate", "c.yaml", "--annotations", "none", "--codequality", "cq.json"],
        env={"GITHUB_ACTIONS": "true"},
    )
    assert "::error" not in clean.output and (tmp_path / "cq.json").is_file()


def test_an_absolute_path_under_the_working_directory_is_made_relative(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "m").mkdir()
    (tmp_path / "m" / "c.yaml").write_text(VALIDATE_CASES["validate-error"], encoding="utf-8")
    result = CliRunner().invoke(
        main, ["validate", str(tmp_path / "m" / "c.yaml"), "--annotations", "github"]
    )
    assert "::error file=m/c.yaml,line=3,col=5," in result.output


# What reviewers see past the first findings: GitHub shows 10 annotations of each severity a step
# (the 10th then counts the rest, in the noun of its severity); GitLab keeps a finding repeated
# word for word as findings of their own, each with a fingerprint that the next run gives again;
# the Code Quality file keeps text as written.


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
