"""The run summary over several environments (fleet/summary.py): the exit code across
them, the table's rows in the project's order, the JSON report; and the apply
confirmation naming the environment."""

from __future__ import annotations

import json

import pytest

from reconciler.changes import Action, BrakeVerdict, Change, Diagnostic, Plan
from reconciler.clients.auth import Secret
from reconciler.clients.connection import Connection, HelpdeskConnection
from reconciler.fleet.plans import EnvironmentRun
from reconciler.fleet.summary import exit_code, report_json, summary_markdown, summary_text
from reconciler.terminal.console import confirmation_text

CHANGED = Plan(changes=(Change("companies", "Acme", Action.create),), brake=BrakeVerdict())
SAME = Plan(changes=(), brake=BrakeVerdict())
PLAN_ERROR = Plan(changes=(), errors=(Diagnostic("error", "unknown company"),))
HELD = Plan(changes=(Change("users", "a", Action.disable),), brake=BrakeVerdict(("too many",)))


def run(name: str, plan: Plan | None = None, error: str | None = None) -> EnvironmentRun:
    return EnvironmentRun(name, plan=plan, error=error, seconds=1.25)


@pytest.mark.parametrize(
    ("runs", "detailed", "code"),
    [
        ([run("a", SAME), run("b", SAME)], True, 0),
        ([run("a", SAME), run("b", CHANGED)], False, 0),
        ([run("a", SAME), run("b", CHANGED)], True, 2),
        ([run("a", CHANGED), run("b", error="connection refused")], True, 1),
        ([run("a", CHANGED), run("b", PLAN_ERROR)], True, 1),
        ([run("a", HELD)], True, 2),  # the brake is apply's matter; a plan shows it
    ],
)
def test_the_exit_code_across_environments(
    runs: list[EnvironmentRun], detailed: bool, code: int
) -> None:
    assert exit_code(runs, detailed) == code


def test_the_table_has_a_row_per_environment_in_order() -> None:
    runs = [run("acme", CHANGED), run("globex", error="refused"), run("initech", HELD)]
    text = summary_text(runs)
    rows = text.splitlines()
    assert rows[0].split() == [
        "environment", "create", "update", "delete", "enable", "disable", "errors", "brake",
        "duration",
    ]  # fmt: skip
    assert rows[2].split() == ["acme", "1", "0", "0", "0", "0", "0", "ok", "1.2s"]
    assert rows[3].split() == ["globex", "0", "0", "0", "0", "0", "1", "-", "1.2s"]
    assert rows[4].split() == ["initech", "0", "0", "0", "0", "1", "0", "holds", "1.2s"]
    assert rows[5] == ("3 environment(s), 2 with changes (acme, initech), 1 with errors (globex).")
    markdown = summary_markdown(runs)
    assert "| acme | 1 | 0 | 0 | 0 | 0 | 0 | ok | 1.2s |" in markdown


def test_the_json_report() -> None:
    report = json.loads(report_json([run("acme", CHANGED), run("b", error="refused")], "plan"))
    assert report["command"] == "plan"
    first, second = report["environments"]
    assert (first["environment"], first["status"], first["changes"]["create"]) == (
        "acme",
        "changes",
        1,
    )
    assert (second["status"], second["error"], second["brake"]) == ("error", "refused", None)
    assert report["totals"]["with_errors"] == 1 and report["totals"]["changes"]["create"] == 1


def test_the_apply_confirmation_names_the_environment() -> None:
    helpdesk = HelpdeskConnection("https://acme.example.com", token=Secret("t"))
    text = confirmation_text(CHANGED, Connection(helpdesk, None, environment="acme"))
    assert "  environment  acme" in text
    assert "environment" not in confirmation_text(CHANGED, Connection(helpdesk, None))
