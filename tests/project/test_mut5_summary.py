"""The run summary over several environments (fleet/summary.py) with texts outside
ASCII: the JSON report (`--report-file`) keeps them as written, readable in the file, and
the text table aligns its columns by characters."""

from __future__ import annotations

import json

from reconciler.changes import Action, BrakeVerdict, Change, Plan
from reconciler.fleet.plans import EnvironmentRun
from reconciler.fleet.summary import report_json, summary_text

CHANGED = Plan(changes=(Change("companies", "Acme", Action.create),), brake=BrakeVerdict())
HELD = Plan(
    changes=(Change("users", "a", Action.disable),),
    brake=BrakeVerdict(("3 désactivations (max 2)",)),
)
RUNS = [
    EnvironmentRun("zürich", plan=CHANGED, seconds=0.5),
    EnvironmentRun("genève", error="connexion refusée", seconds=0.25),
    EnvironmentRun("köln", plan=HELD, seconds=1),
]


def test_the_json_report_keeps_each_text_as_written() -> None:
    written = report_json(RUNS, "plan")
    assert '"environment": "zürich"' in written
    assert '"error": "connexion refusée"' in written
    assert '"3 désactivations (max 2)"' in written
    assert "\\u" not in written
    assert [r["environment"] for r in json.loads(written)["environments"]] == [
        "zürich",
        "genève",
        "köln",
    ]


def test_the_text_table_whole() -> None:
    assert summary_text(RUNS) == (
        "environment  create  update  delete  enable  disable  errors  brake  duration\n"
        "-----------  ------  ------  ------  ------  -------  ------  -----  --------\n"
        "zürich            1       0       0       0        0       0     ok      0.5s\n"
        "genève            0       0       0       0        0       1      -      0.2s\n"
        "köln              0       0       0       0        1       0  holds      1.0s\n"
        "3 environment(s), 2 with changes (zürich, köln), 1 with errors (genève).\n"
    )
