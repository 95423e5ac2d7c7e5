"""The run summary over several environments (fleet/summary.py), whole: the JSON
report (`--report-file`) as written, with and without the apply's results, the text
table and the Markdown table."""

from __future__ import annotations

from reconciler.changes import Action, BrakeVerdict, Change, Diagnostic, Plan
from reconciler.fleet.plans import EnvironmentRun
from reconciler.fleet.rollout import Applied, Result
from reconciler.fleet.summary import report_json, summary_markdown, summary_text
from reconciler.fleet.waves import Wave

CHANGED = Plan(
    changes=(
        Change("companies", "Acme", Action.create),
        Change("users", "a", Action.update),
        Change("users", "b", Action.update),
    ),
    brake=BrakeVerdict(),
)
HELD = Plan(changes=(Change("users", "a", Action.disable),), brake=BrakeVerdict(("too many",)))
BROKEN = Plan(
    changes=(Change("users", "c", Action.delete),),
    errors=(Diagnostic("error", "x"), Diagnostic("error", "y")),
)
ACTIONS = ["create", "update", "delete", "enable", "disable"]
RUNS = [
    EnvironmentRun("acme", plan=CHANGED, seconds=1.2345),
    EnvironmentRun("b|c", error="refused", seconds=0.04),
    EnvironmentRun("initech", plan=HELD, seconds=12.0),
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


def test_the_json_report_whole() -> None:
    rows = [
        _row("acme", "changes", [1, 2, 0, 0, 0], 0, None, "ok", [], 1.234),
        _row("b|c", "error", [0, 0, 0, 0, 0], 1, "refused", None, [], 0.04),
        _row("initech", "changes", [0, 0, 0, 0, 1], 0, None, "holds", ["too many"], 12.0),
        _row("same", "no changes", [0, 0, 0, 0, 0], 0, None, None, [], 0),
        _row("bad", "error", [0, 0, 1, 0, 0], 3, "and then refused", None, [], 2),
    ]
    assert report_json(RUNS, "plan") == (
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
    runs = [EnvironmentRun("acme", plan=CHANGED, seconds=1), EnvironmentRun("z", plan=HELD)]
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


def test_the_text_table_whole() -> None:
    assert summary_text(RUNS) == (
        "environment  create  update  delete  enable  disable  errors  brake  duration\n"
        "-----------  ------  ------  ------  ------  -------  ------  -----  --------\n"
        "acme              1       2       0       0        0       0     ok      1.2s\n"
        "b|c               0       0       0       0        0       1      -      0.0s\n"
        "initech           0       0       0       0        1       0  holds     12.0s\n"
        "same              0       0       0       0        0       0      -      0.0s\n"
        "bad               0       0       1       0        0       3      -      2.0s\n"
        "5 environment(s), 2 with changes (acme, initech), 2 with errors (b|c, bad).\n"
    )


def test_the_markdown_table_whole() -> None:
    assert summary_markdown(RUNS[3:4]) == (
        "### Summary\n"
        "\n"
        "| environment | create | update | delete | enable | disable | errors | brake "
        "| duration |\n"
        "|:---|---:|---:|---:|---:|---:|---:|---:|---:|\n"
        "| same | 0 | 0 | 0 | 0 | 0 | 0 | - | 0.0s |\n"
        "\n"
        "1 environment(s), 0 with changes, 0 with errors.\n"
    )
    assert "| b\\|c | 0 | 0 | 0 | 0 | 0 | 1 | - | 0.0s |\n" in summary_markdown(RUNS)
