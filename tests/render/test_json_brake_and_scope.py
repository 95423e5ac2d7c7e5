"""The safety brake's verdict and a partial plan's scope are part of the JSON plan
(DESIGN §4): reviewers and CI read them under their own keys, after `live_digest`, and a
saved plan keeps them when `apply PLANFILE` reads it back."""

from __future__ import annotations

import json

from reconciler.plans import Action, BrakeVerdict, Change, Plan
from reconciler.plans.planfile import plan_from_json
from reconciler.render import format_json

SCOPE = {
    "partial": True,
    "changed_since": "HEAD",
    "entries": 3,
    "changed": 1,
    "removed": 0,
    "total_entries": 8,
    "full_reason": None,
}


def judged_plan() -> Plan:
    return Plan(
        (Change("workspace.employees", "amy@acme.com", Action.delete, removal=True),),
        live_digest="sha256:abc",
        brake=BrakeVerdict(("1 employee deleted, more than settings.safety allows",)),
        scope=SCOPE,
    )


def test_the_brake_and_the_scope_are_written_under_their_keys_after_the_digest() -> None:
    data = json.loads(format_json(judged_plan()))
    assert list(data)[-3:] == ["live_digest", "brake", "scope"]
    assert data["brake"] == {
        "holds": True,
        "reasons": ["1 employee deleted, more than settings.safety allows"],
    }
    assert data["scope"] == SCOPE


def test_a_brake_that_passes_is_written_too() -> None:
    data = json.loads(format_json(Plan((), brake=BrakeVerdict())))
    assert data["brake"] == {"holds": False, "reasons": []}
    assert "scope" not in data  # a plan of every entry has no scope


def test_a_saved_plan_keeps_its_brake_and_scope() -> None:
    plan = judged_plan()
    assert plan_from_json(format_json(plan)) == plan
