"""`format_json` is DESIGN §4's shape exactly, and `plan_from_dict` is its inverse."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings

from reconciler.errors import ProblemsError
from reconciler.plans import Action, Change, FieldChange, Operation, Plan, Ref, error, warning
from reconciler.plans.planfile import plan_from_dict, plan_from_json
from reconciler.render import format_json
from tests.render.strategies import plans

ACME = 'companies["Acme Corp"]'


def sample_plan() -> Plan:
    return Plan(
        changes=(
            Change(
                "companies",
                "Acme Corp",
                Action.create,
                (FieldChange("name", None, "Acme Corp"),),
                (
                    Operation(
                        "helpdesk", "POST", "/api/Company", {"name": "Acme Corp"}, creates=ACME
                    ),
                ),
            ),
            Change(
                "users",
                "ålice",
                Action.update,
                (FieldChange("company_id", 3, Ref(ACME)),),
                (
                    Operation(
                        "helpdesk",
                        "POST",
                        "/api/UpdateUser",
                        {"userId": 7, "companyId": Ref(ACME)},
                        idempotent=False,
                    ),
                ),
                depends_on=(ACME,),
                reason="moves to Acme",
                removal=False,
            ),
        ),
        warnings=(warning("not managed", 'companies["Zeta"]', "add it"),),
        errors=(error("bad field", ACME, "fix it", "acme.yaml:1:2"),),
        live_digest="sha256:abc",
    )


# -- the shape --------------------------------------------------------------------------


def test_json_is_to_dict_with_two_space_indent_and_a_trailing_newline() -> None:
    plan = sample_plan()
    text = format_json(plan)
    assert text.endswith("}\n") and not text.endswith("\n\n")
    assert json.loads(text) == plan.to_dict()
    assert text == json.dumps(plan.to_dict(), indent=2, ensure_ascii=False) + "\n"
    assert '\n  "format_version": 1,\n  "summary": {\n    "create": 1,' in text


def test_top_level_keys_are_in_design_order() -> None:
    data = json.loads(format_json(sample_plan()))
    assert list(data) == [
        "format_version",
        "summary",
        "changes",
        "warnings",
        "errors",
        "live_digest",
    ]
    assert list(data["summary"]) == ["create", "update", "delete", "enable", "disable"]
    assert list(data["changes"][0]) == ["address", "kind", "key", "action", "fields", "operations"]


def test_refs_are_known_after_apply_markers_and_text_stays_readable() -> None:
    text = format_json(sample_plan())
    assert '"after": {\n' in text and '"known_after_apply": "companies[\\"Acme Corp\\"].id"' in text
    assert "ålice" in text


def test_nan_is_refused_rather_than_written_as_invalid_json() -> None:
    plan = Plan((Change("assets", "x", Action.update, (FieldChange("n", 1.0, float("nan")),)),))
    # The json module's own refusal (allow_nan=False); newer Pythons append the value.
    with pytest.raises(ValueError, match=r"^Out of range float values are not JSON compliant"):
        format_json(plan)


# -- the round trip ---------------------------------------------------------------------


def test_sample_plan_round_trips_through_json() -> None:
    plan = sample_plan()
    assert plan_from_json(format_json(plan)) == plan
    assert plan_from_dict(plan.to_dict()) == plan


@settings(max_examples=300, deadline=None)
@given(plans)
def test_any_plan_round_trips_exactly(plan: Plan) -> None:
    assert plan_from_json(format_json(plan)) == plan
    assert plan_from_dict(plan.to_dict()) == plan


def test_tuples_and_sets_come_back_as_lists_with_the_same_serialisation() -> None:
    # JSON has only lists: the plan read back is equal to the original in every way that
    # is written down, which is what apply executes.
    plan = Plan(
        (
            Change(
                "assets",
                "SN-1",
                Action.update,
                (FieldChange("tags", ("a", "b"), frozenset({"b", "c"})),),
            ),
        )
    )
    again = plan_from_json(format_json(plan))
    assert again.changes[0].fields[0] == FieldChange("tags", ["a", "b"], ["b", "c"])
    assert again.to_dict() == plan.to_dict()


def test_a_ref_whose_address_holds_dots_splits_at_the_last_one() -> None:
    ref = Ref('companies["acme.co.uk"]', "id")
    plan = Plan((Change("users", "u", Action.create, (FieldChange("company_id", None, ref),)),))
    assert plan_from_json(format_json(plan)).changes[0].fields[0].after == ref


# -- refusing what is not a plan --------------------------------------------------------


def problems_of(data: Any) -> list[str]:
    with pytest.raises(ProblemsError) as caught:
        plan_from_dict(data, source="saved.json")
    return caught.value.problems


def test_every_problem_is_listed_with_its_json_path() -> None:
    data = sample_plan().to_dict()
    data["changes"][0]["action"] = "destroy"
    data["changes"][1]["address"] = 'users["bob"]'
    del data["changes"][1]["fields"][0]["before"]
    data["changes"][1]["operations"][0]["params"]["companyId"] = {"known_after_apply": "nodot"}
    data["changes"][1]["surprise"] = 1
    data["errors"][0]["message"] = 42
    data["warnings"] = {}
    assert problems_of(data) == [
        'saved.json: changes[0].action: "destroy" is not an action '
        "(create, update, delete, enable, disable)",
        "saved.json: changes[1].surprise: unknown field",
        'saved.json: changes[1].address: "users[\\"bob\\"]" is not the address of kind "users" '
        'and key "ålice"',
        "saved.json: changes[1].fields[0].before: missing",
        "saved.json: changes[1].operations[0].params.companyId.known_after_apply: expected "
        '"address.attribute", found "nodot"',
        "saved.json: warnings: expected a list, found an object",
        "saved.json: errors[0].message: expected a string, found a number",
    ]


def test_a_summary_edited_after_review_is_refused() -> None:
    data = sample_plan().to_dict()
    data["summary"]["create"] = 0
    assert problems_of(data) == [
        "saved.json: summary: does not match the changes, which make "
        "1 to create, 1 to update, 0 to delete, 0 to enable, 0 to disable"
    ]


def test_another_format_version_is_refused_before_anything_else() -> None:
    data = sample_plan().to_dict()
    data["format_version"] = 2
    data["changes"] = "not even a list"
    assert problems_of(data) == [
        "saved.json: format_version: this reconciler reads format 1 plans, not 2: "
        "plan again with this version"
    ]


@pytest.mark.parametrize(
    ("data", "problem"),
    [
        ([], "saved.json: expected an object, found a list"),
        (
            {k: v for k, v in Plan(()).to_dict().items() if k != "errors"},
            "saved.json: errors: missing",
        ),
        ({}, "saved.json: changes: missing"),
        (
            {"format_version": True, "changes": [], "live_digest": ""},
            "saved.json: format_version: this reconciler reads format 1 plans, not true: "
            "plan again with this version",
        ),
        (
            {"format_version": 1, "changes": [None], "live_digest": ""},
            "saved.json: changes[0]: expected an object, found null",
        ),
        (
            {"format_version": 1, "changes": [], "live_digest": 5},
            "saved.json: live_digest: expected a string, found a number",
        ),
    ],
)
def test_malformed_plans(data: Any, problem: str) -> None:
    assert problem in problems_of(data)


def test_a_flag_must_be_a_boolean() -> None:
    data = sample_plan().to_dict()
    data["changes"][1]["operations"][0]["idempotent"] = "no"
    assert problems_of(data) == [
        "saved.json: changes[1].operations[0].idempotent: expected true or false, found a string"
    ]


def test_text_that_is_not_json_names_the_line_and_column() -> None:
    with pytest.raises(ProblemsError) as caught:
        plan_from_json('{\n  "format_version": 1,\n  oops\n}', source="plan.json")
    assert caught.value.problems == [
        "plan.json:3:3: not JSON: Expecting property name enclosed in double quotes"
    ]


def test_bytes_that_are_not_utf8_are_refused() -> None:
    with pytest.raises(ProblemsError, match=r"plan\.json: not UTF-8"):
        plan_from_json(b'{"x": "\xff"}', source="plan.json")
