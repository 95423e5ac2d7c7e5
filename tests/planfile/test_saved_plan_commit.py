"""The commit a saved plan was made from (`made_from.commit`, docs/drift.md): written when
known, read back, left out when not; and each change's `cause` is accepted, not applied."""

from __future__ import annotations

import json

import pytest

from reconciler.plans import Plan
from reconciler.plans.planfile import (
    PlanFileError,
    PlanInputs,
    format_plan_file,
    saved_plan_from_json,
)

COMMIT = "0123456789abcdef0123456789abcdef01234567"
EMPTY = Plan((), live_digest="sha256:x")


def test_the_commit_is_saved_and_read_back() -> None:
    saved = format_plan_file(EMPTY, PlanInputs("sha256:y", commit=COMMIT))
    assert json.loads(saved)["made_from"]["commit"] == COMMIT
    assert saved_plan_from_json(saved).inputs.commit == COMMIT


def test_without_a_commit_the_field_is_left_out() -> None:
    saved = format_plan_file(EMPTY, PlanInputs("sha256:y"))
    assert "commit" not in json.loads(saved)["made_from"]
    assert saved_plan_from_json(saved).inputs.commit is None


def test_a_commit_that_is_not_text_is_refused() -> None:
    data = json.loads(format_plan_file(EMPTY, PlanInputs("sha256:y")))
    data["made_from"]["commit"] = 7
    with pytest.raises(PlanFileError) as refused:
        saved_plan_from_json(json.dumps(data))
    assert refused.value.problems == ["plan: made_from.commit: expected a string, found a number"]
