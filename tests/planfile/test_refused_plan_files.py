"""What `apply PLANFILE` relies on from the plan file, in-process: a file whose live
digest was edited is refused with a message naming the field, and the difference between
a saved plan and a plan made now names each change only one of them has."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from reconciler.errors import PlanFileError
from reconciler.plans import Plan, RenameHint
from reconciler.plans.planfile import (
    PlanInputs,
    differences,
    format_plan_file,
    saved_plan_from_json,
)
from tests.planning.test_cases import run_case
from tests.planning.test_saved_plans import _load

CASE = Path(__file__).parents[1] / "planning" / "cases" / "companies_create.yaml"
INPUTS = PlanInputs("sha256:" + "0" * 64, prune=True, targets=("companies",))
ACME = 'companies["Acme Corp"]'


@pytest.fixture
def plan_and_file(tmp_path: Path) -> tuple[Plan, str]:
    plan, _, _ = run_case(_load(CASE), tmp_path)
    assert [c.address for c in plan.changes] == [ACME]
    return plan, format_plan_file(plan, INPUTS)


def test_an_untouched_file_reads_back_with_what_it_was_made_from(
    plan_and_file: tuple[Plan, str],
) -> None:
    _, text = plan_and_file
    saved = saved_plan_from_json(text, source="plan.json")
    assert saved.inputs == INPUTS
    assert saved.inputs.flags() == "--prune --target companies"
    assert [c["address"] for c in saved.changes] == [ACME]


@pytest.mark.parametrize("where", ["made_from", "plan"])
def test_a_file_whose_live_digest_was_edited_is_refused_naming_the_field(
    plan_and_file: tuple[Plan, str], where: str
) -> None:
    _, text = plan_and_file
    data = json.loads(text)
    if where == "made_from":
        data["made_from"]["live_digest"] = "sha256:" + "1" * 64
    else:
        data["live_digest"] = "sha256:" + "1" * 64
    with pytest.raises(PlanFileError) as refused:
        saved_plan_from_json(json.dumps(data), source="plan.json")
    assert refused.value.problems == ["plan.json: made_from.live_digest: differs from live_digest"]


def test_each_change_only_one_plan_has_is_named_with_the_plan_that_has_it(
    plan_and_file: tuple[Plan, str],
) -> None:
    plan, text = plan_and_file
    empty = replace(plan, changes=())
    saved_empty = saved_plan_from_json(format_plan_file(empty, INPUTS))
    assert differences(saved_empty, plan) == [f"{ACME}: in a plan made now, not in the saved plan"]
    saved = saved_plan_from_json(text)
    assert differences(saved, empty) == [f"{ACME}: in the saved plan, not in a plan made now"]
    assert differences(saved, plan) == []


def test_rename_hints_that_came_or_went_since_are_no_difference(
    plan_and_file: tuple[Plan, str],
) -> None:
    # Advice for the reviewer (an unlisted company renamed by hand since the plan): apply
    # does the same either way, so a saved plan is not refused for it.
    plan, text = plan_and_file
    hint = RenameHint("Acme", 4, "looks like ...", "previously: [Acme]")
    hinted = replace(plan, changes=(replace(plan.changes[0], rename_hints=(hint,)),))
    assert differences(saved_plan_from_json(text), hinted) == []
    saved_hinted = saved_plan_from_json(format_plan_file(hinted, INPUTS))
    assert saved_hinted.plan.changes[0].rename_hints == (hint,)
    assert differences(saved_hinted, plan) == []
    moved = replace(plan.changes[0], key="Acme Corp Ltd")  # a real difference still counts
    assert differences(saved_hinted, replace(plan, changes=(moved,))) != []
