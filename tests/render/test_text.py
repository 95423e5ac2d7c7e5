"""The text renderer: colour only when asked, through ANSI that rich renders, and the same
characters either way; no escape code from any value ever reaches the terminal."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings

from reconciler.plans import Action, Change, FieldChange, Operation, Plan, Ref, error
from reconciler.render import format_text
from tests.render.strategies import plans
from tests.render.test_cases import CASE_NAMES, load

ANSI = re.compile(r"\x1b\[[0-9;]*m")
# Anything but a line end that a terminal would act on rather than print.
CONTROL = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")


def one_of_each() -> Plan:
    return Plan(
        tuple(
            Change("users", action.value, action, (FieldChange("n", 1, 2),)) for action in Action
        ),
        errors=(error("broken", 'users["x"]'),),
    )


@pytest.mark.parametrize("case", CASE_NAMES)
def test_colour_changes_no_character_only_adds_ansi(case: str) -> None:
    plan = load(case)
    plain = format_text(plan, show_operations=True)
    coloured = format_text(plan, color=True, show_operations=True)
    assert ANSI.sub("", coloured) == plain
    assert not CONTROL.search(plain)


def test_colours_are_green_create_yellow_update_red_delete() -> None:
    lines = format_text(one_of_each(), color=True).split("\n")
    starts = set()
    for line in lines:
        code = ANSI.match(line)
        if code and not code.group().startswith("\x1b[1"):  # not the bold diagnostics
            starts.add((line[len(code.group()) :][:1], code.group()))
    assert starts == {("+", "\x1b[32m"), ("~", "\x1b[33m"), ("-", "\x1b[31m")}
    assert "\x1b[1;31mError:" in "\n".join(lines)


def test_without_colour_there_is_no_escape_code_even_from_hostile_values() -> None:
    hostile = "\x1b[2J\x1b]0;owned\x07\u202eevil"
    plan = Plan(
        (
            Change(
                "users",
                hostile,
                Action.update,
                (FieldChange(hostile, hostile, [hostile]),),
                (Operation("helpdesk", "POST", hostile, {hostile: hostile}, description=hostile),),
                reason=hostile,
            ),
        ),
        errors=(error(hostile, hostile, hostile, hostile),),
    )
    for color in (False, True):
        text = format_text(plan, color=color, show_operations=True)
        assert not CONTROL.search(ANSI.sub("", text))
    assert "\\x1b[2J" in format_text(plan)  # shown, escaped


@settings(max_examples=150, deadline=None)
@given(plans)
def test_any_plan_renders_without_control_characters(plan: Plan) -> None:
    plain = format_text(plan, show_operations=True)
    assert not CONTROL.search(plain)
    assert ANSI.sub("", format_text(plan, color=True, show_operations=True)) == plain
    assert plain.endswith(".\n")
    # One block per change, headed by its symbol.
    headers = [line for line in plain.split("\n") if line[:2] in ("+ ", "~ ", "- ")]
    assert len(headers) == len(plan.changes)


def test_operations_only_when_asked() -> None:
    ref = Ref('companies["Acme"]')
    create = Operation("helpdesk", "POST", "/api/CreateUser", {"companyId": ref})
    field = FieldChange("company_id", None, ref)
    plan = Plan((Change("users", "u", Action.create, (field,), (create,)),))
    assert "operations:" not in format_text(plan)
    assert format_text(plan, show_operations=True).split("\n")[2:4] == [
        "    operations:",
        "      helpdesk POST /api/CreateUser {companyId: (known after apply)}",
    ]


def test_summary_line() -> None:
    assert format_text(one_of_each()).endswith(
        "Plan: 1 to create, 1 to update, 1 to delete, 1 to enable, 1 to disable.\n"
        "1 error: nothing can be applied until it is fixed.\n"
    )
    assert format_text(Plan(())) == "No changes. The live state matches the manifests.\n"
