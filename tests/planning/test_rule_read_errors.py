"""A rule whose answer cannot be read stops the plan with an error that names the rule:
with several rules in the manifests, "GET /api/Rule failed" would leave the reader to
guess which of them the helpdesk answered wrongly."""

from __future__ import annotations

from pathlib import Path

import pytest

from reconciler.errors import ApiError
from tests.planning.test_cases import run_case


@pytest.mark.parametrize(
    ("answer", "message"),
    [
        ("not xml at all", "GET /api/Rule/9 failed: the answer is not a valid rule document: "),
        (
            "<Ticket><Name>x</Name></Ticket>",
            "GET /api/Rule/9 failed: the answer is not a rule document (root <ticket>)",
        ),
    ],
)
def test_the_error_names_the_rule_whose_answer_is_not_a_rule(
    answer: str, message: str, tmp_path: Path
) -> None:
    case = {
        "desired": {"automation_rules": [{"id": 5, "enabled": True}, {"id": 9, "enabled": True}]},
        "live": {
            "helpdesk": {
                "Rule/5": "<AutomationRule><Name>Escalate</Name></AutomationRule>",
                "Rule/9": answer,
            }
        },
    }
    with pytest.raises(ApiError) as raised:
        run_case(case, tmp_path)
    assert raised.value.path == "/api/Rule/9"
    assert str(raised.value).startswith(message)
