"""The run summary over several environments (project/summary.py): the exit code across
them, the table's rows in the project's order, the JSON report; and the apply
confirmation naming the environment."""

from __future__ import annotations

import json

import pytest

from reconciler.clients.auth import Secret
from reconciler.clients.connection import Connection, HelpdeskConnection
from reconciler.fleet.plans import EnvironmentRun
from reconciler.fleet.rollout import Applied, Result, Wave
from reconciler.fleet.summary import exit_code, report_json, summary_markdown, summary_text
from reconciler.plans import Action, BrakeVerdict, Change, Diagnostic, Plan
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


# The run summary over several environments (project/summary.py), whole: the JSON report
# (`--report-file`) as written, with and without the apply's results, the text table and the
# Markdown table.

SEVERAL_CHANGES = Plan(
    changes=(
        Change("companies", "Acme", Action.create),
        Change("users", "a", Action.update),
        Change("users", "b", Action.update),
    ),
    brake=BrakeVerdict(),
)
HELD_BY_THE_BRAKE = Plan(
    changes=(Change("users", "a", Action.disable),), brake=BrakeVerdict(("too many",))
)
BROKEN = Plan(
    changes=(Change("users", "c", Action.delete),),
    errors=(Diagnostic("error", "x"), Diagnostic("error", "y")),
)
ACTIONS = ["create", "update", "delete", "enable", "disable"]
EVERY_KIND_OF_RUN = [
    EnvironmentRun("acme", plan=SEVERAL_CHANGES, seconds=1.2345),
    EnvironmentRun("b|c", error="refused", seconds=0.04),
    EnvironmentRun("initech", plan=HELD_BY_THE_BRAKE, seconds=12.0),
    EnvironmentRun("same", plan=Plan(changes=()), seconds=0),
    EnvironmentRun("bad", plan=BROKEN, error="and then refused", seconds=2),
]


def _row(name: str, status: str, counts: list[int], errors: int, error: str | None,
         brake: str | None, reasons: list[str], seconds: float) -> str:  # fmt: skip
    changes = ",\n".join(
        f'        "{action}": {count}' for action, count in zip(ACTIONS, counts, strict=True)
    )
    reasons_json = (
        "[]" if not reasons else "[\n" + ",\n".join(f'        "{r}"' for r in reasons) + "\n      ]"
    )
    return (
        "    {\n"
        f'      "environment": "{name}",\n'
        f'      "status": "{status}",\n'
        '      "changes": {\n'
        f"{changes}\n"
        "      },\n"
        f'      "errors": {errors},\n'
        f'      "error": {"null" if error is None else chr(34) + error + chr(34)},\n'
        f'      "brake": {"null" if brake is None else chr(34) + brake + chr(34)},\n'
        f'      "brake_reasons": {reasons_json},\n'
        f'      "seconds": {seconds}\n'
        "    }"
    )


def test_the_json_report_holds_every_kind_of_run_as_written() -> None:
    rows = [
        _row("acme", "changes", [1, 2, 0, 0, 0], 0, None, "ok", [], 1.234),
        _row("b|c", "error", [0, 0, 0, 0, 0], 1, "refused", None, [], 0.04),
        _row("initech", "changes", [0, 0, 0, 0, 1], 0, None, "holds", ["too many"], 12.0),
        _row("same", "no changes", [0, 0, 0, 0, 0], 0, None, None, [], 0),
        _row("bad", "error", [0, 0, 1, 0, 0], 3, "and then refused", None, [], 2),
    ]
    assert report_json(EVERY_KIND_OF_RUN, "plan") == (
        "{\n"
        '  "format_version": 1,\n'
        '  "command": "plan",\n'
        '  "environments": [\n' + ",\n".join(rows) + "\n  ],\n"
        '  "totals": {\n'
        '    "environments": 5,\n'
        '    "with_errors": 2,\n'
        '    "with_changes": 2,\n'
        '    "changes": {\n'
        '      "create": 1,\n'
        '      "update": 2,\n'
        '      "delete": 1,\n'
        '      "enable": 0,\n'
        '      "disable": 1\n'
        "    }\n"
        "  }\n"
        "}\n"
    )


def test_the_json_report_after_apply_has_each_environments_result() -> None:
    runs = [
        EnvironmentRun("acme", plan=SEVERAL_CHANGES, seconds=1),
        EnvironmentRun("z", plan=HELD_BY_THE_BRAKE),
    ]
    applied = [Applied("acme", Wave(3, ("acme",)), Result.FAILED, error="boom", seconds=0.12345)]
    report = report_json(runs, "apply", applied)
    assert '"command": "apply"' in report
    assert (
        '      "seconds": 1,\n'
        '      "apply": {\n'
        '        "wave": 3,\n'
        '        "result": "failed",\n'
        '        "error": "boom",\n'
        '        "seconds": 0.123\n'
        "      }\n"
        "    },\n"
    ) in report
    assert report.count('"apply": {') == 1  # z was not applied: no apply entry
    assert '"environment": "ü"' in report_json([EnvironmentRun("ü")], "plan")


def test_the_text_table_shows_every_kind_of_run() -> None:
    assert summary_text(EVERY_KIND_OF_RUN) == (
        "environment  create  update  delete  enable  disable  errors  brake  duration\n"
        "-----------  ------  ------  ------  ------  -------  ------  -----  --------\n"
        "acme              1       2       0       0        0       0     ok      1.2s\n"
        "b|c               0       0       0       0        0       1      -      0.0s\n"
        "initech           0       0       0       0        1       0  holds     12.0s\n"
        "same              0       0       0       0        0       0      -      0.0s\n"
        "bad               0       0       1       0        0       3      -      2.0s\n"
        "5 environment(s), 2 with changes (acme, initech), 2 with errors (b|c, bad).\n"
    )


def test_the_markdown_table_shows_every_kind_of_run() -> None:
    assert summary_markdown(EVERY_KIND_OF_RUN[3:4]) == (
        "### Summary\n"
        "\n"
        "| environment | create | update | delete | enable | disable | errors | brake "
        "| duration |\n"
        "|:---|---:|---:|---:|---:|---:|---:|---:|---:|\n"
        "| same | 0 | 0 | 0 | 0 | 0 | 0 | - | 0.0s |\n"
        "\n"
        "1 environment(s), 0 with changes, 0 with errors.\n"
    )
    assert "| b\\|c | 0 | 0 | 0 | 0 | 0 | 1 | - | 0.0s |\n" in summary_markdown(EVERY_KIND_OF_RUN)


# The run summary over several environments (project/summary.py) with texts outside ASCII: the
# JSON report (`--report-file`) keeps them as written, readable in the file, and the text table
# aligns its columns by characters.

NON_ASCII_CHANGED = Plan(
    changes=(Change("companies", "Acme", Action.create),), brake=BrakeVerdict()
)
NON_ASCII_HELD = Plan(
    changes=(Change("users", "a", Action.disable),),
    brake=BrakeVerdict(("3 désactivations (max 2)",)),
)
NON_ASCII_RUNS = [
    EnvironmentRun("zürich", plan=NON_ASCII_CHANGED, seconds=0.5),
    EnvironmentRun("genève", error="connexion refusée", seconds=0.25),
    EnvironmentRun("köln", plan=NON_ASCII_HELD, seconds=1),
]


def test_the_json_report_keeps_each_text_as_written() -> None:
    written = report_json(NON_ASCII_RUNS, "plan")
    assert '"environment": "zürich"' in written
    assert '"error": "connexion refusée"' in written
    assert '"3 désactivations (max 2)"' in written
    assert "\\u" not in written
    assert [r["environment"] for r in json.loads(written)["environments"]] == [
        "zürich",
        "genève",
        "köln",
    ]


def test_the_text_table_aligns_texts_outside_ascii_by_characters() -> None:
    assert summary_text(NON_ASCII_RUNS) == (
        "environment  create  update  delete  enable  disable  errors  brake  duration\n"
        "-----------  ------  ------  ------  ------  -------  ------  -----  --------\n"
        "zürich            1       0       0       0        0       0     ok      0.5s\n"
        "genève            0       0       0       0        0       1      -      0.2s\n"
        "köln              0       0       0       0        1       0  holds      1.0s\n"
        "3 environment(s), 2 with changes (zürich, köln), 1 with errors (genève).\n"
    )
