"""Reading rules: what is not a missing rule must stop the plan, not be guessed at."""

from __future__ import annotations

from pathlib import Path

import pytest

from reconciler.errors import ApiError
from tests.planning.test_cases import run_case


def _case(answer: object) -> dict[str, object]:
    return {
        "desired": {"automation_rules": [{"id": 5, "enabled": True}]},
        "live": {"helpdesk": {"Rule/5": answer}},
    }


def test_a_server_error_is_not_taken_for_a_missing_rule(tmp_path: Path) -> None:
    with pytest.raises(ApiError) as raised:
        run_case(_case({"status": 500, "error": "Internal error"}), tmp_path)
    assert raised.value.status == 500


@pytest.mark.parametrize("answer", ["not xml at all", "<Ticket><Name>x</Name></Ticket>"])
def test_an_answer_that_is_not_a_rule_stops_the_plan(answer: str, tmp_path: Path) -> None:
    with pytest.raises(ApiError, match="rule document"):
        run_case(_case(answer), tmp_path)


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
