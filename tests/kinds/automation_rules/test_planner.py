"""Reading rules: what is not a missing rule must stop the plan, not be guessed at."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from reconciler.errors import ApiError
from reconciler.kinds.register import RESOURCES
from reconciler.live import read_live
from reconciler.manifest.loader import load_manifests
from tests.planning.fakes import SnapshotClient
from tests.planning.test_cases import run_case


def _case(answer: object) -> dict[str, object]:
    return {
        "desired": {"automation_rules": [{"id": 5, "enabled": True}]},
        "live": {"helpdesk": {"Rule/5": answer}},
    }


def test_a_server_error_is_not_taken_for_a_missing_rule(tmp_path: Path) -> None:
    with pytest.raises(ApiError) as raised:
        run_case(_case({"status": 500, "error": "Internal error"}), tmp_path)
    assert str(raised.value) == "GET /api/Rule/5 failed: 500 Internal error"


@pytest.mark.parametrize(
    ("answer", "message"),
    [
        (
            "not xml at all",
            "GET /api/Rule/5 failed: the answer is not a valid rule document: syntax error: "
            "line 1, column 0",
        ),
        (
            "<Ticket><Name>x</Name></Ticket>",
            "GET /api/Rule/5 failed: the answer is not a rule document (root <ticket>)",
        ),
    ],
)
def test_an_answer_that_is_not_a_rule_stops_the_plan(
    answer: str, message: str, tmp_path: Path
) -> None:
    with pytest.raises(ApiError) as refused:
        run_case(_case(answer), tmp_path)
    assert str(refused.value) == message


def test_attributes_and_a_disabled_element_are_read(tmp_path: Path) -> None:
    answer = '<AutomationRule Name="Escalate"><Disabled>true</Disabled></AutomationRule>'
    case = _case(answer)
    plan, helpdesk, _ = run_case(case, tmp_path)
    assert helpdesk.reads == ["Rule/5"]
    [change] = plan.changes
    assert (change.action.value, change.reason) == ("enable", "rule 'Escalate'")
    assert [f.to_dict() for f in change.fields] == [
        {"path": "enabled", "before": False, "after": True}
    ]


# Automation rules read by id: a rule the service does not have (404) is read as absent, any other
# error stops the read; absent rules are neither counted (the safety brake) nor keys (unmanaged
# objects), and the digest holds each rule's name and state.

RULE = "<AutomationRule><Name>{}</Name><Enabled>{}</Enabled></AutomationRule>"


def read(tmp_path: Path, answers: dict[str, Any]) -> Any:
    manifest = tmp_path / "m.yaml"
    ids = sorted(int(key.split("/")[1]) for key in answers)
    manifest.write_text(
        "automation_rules:\n" + "".join(f"  - {{id: {i}, enabled: true}}\n" for i in ids)
    )
    desired = load_manifests([manifest], env={})
    state = asyncio.run(read_live(desired, RESOURCES, helpdesk=SnapshotClient(answers)))
    return state.kinds["automation_rules"]


def test_a_missing_rule_is_absent_not_counted(tmp_path: Path) -> None:
    rules = read(
        tmp_path,
        {
            "Rule/7": RULE.format("Escalate", "true"),
            "Rule/3": {"status": 404, "error": "Rule not found"},
            "Rule/5": RULE.format("Close spam", "false"),
        },
    )
    assert len(rules) == 2
    assert rules.keys() == frozenset({"5", "7"})
    assert rules.digest_data() == [[3, None], [5, ["Close spam", False]], [7, ["Escalate", True]]]


def test_an_error_other_than_not_found_stops_the_read(tmp_path: Path) -> None:
    with pytest.raises(ApiError) as raised:
        read(
            tmp_path,
            {
                "Rule/5": RULE.format("Close spam", "false"),
                "Rule/9": {"status": 500, "error": "boom"},
            },
        )
    assert str(raised.value) == "GET /api/Rule/9 failed: 500 boom"
