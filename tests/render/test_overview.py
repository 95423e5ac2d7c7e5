"""What text and Markdown say beside the changes: the safety brake's verdict whenever the
plan removes something (issue 10, item 7), the values asserted on every apply listed one
by one, and each implicit technician's access named once (issue 11)."""

from __future__ import annotations

from reconciler.plans import Action, BrakeVerdict, Change, Operation, Plan, note
from reconciler.render import format_markdown, format_text, markdown_parts

DISABLE_USER = Change("users", "zoe", Action.disable, removal=True)
DELETE_EMPLOYEE = Change("workspace.employees", "x@acme.com", Action.delete, removal=True)
CREATE = Change("companies", "Acme", Action.create)
RULE = Change(
    "automation_rules",
    "102",
    Action.disable,
    operations=(Operation("helpdesk", "POST", "/api/DisableRule", {"id": 102}),),
    asserted=True,
)
HELEN = note(
    "helen has access through the administrator role: listed by TechsForCategory, "
    "not managed as a category permission",
    'users["helen"]',
    "nothing to do: an administrator works in every category",
)


def test_the_brake_passes_is_shown_when_the_plan_removes_something() -> None:
    plan = Plan((CREATE, DISABLE_USER, DELETE_EMPLOYEE), brake=BrakeVerdict())
    line = (
        "Safety brake: passes (2 removals or disables, 1 deletion that cannot be undone, "
        "within settings.safety): apply goes ahead."
    )
    assert line in format_text(plan).splitlines()
    assert f"**{line}**" in format_markdown(plan)


def test_the_brake_says_nothing_of_a_plan_that_removes_nothing() -> None:
    plan = Plan((CREATE,), brake=BrakeVerdict())
    assert "Safety brake" not in format_text(plan)
    assert "Safety brake" not in format_markdown(plan)


def test_a_brake_that_holds_is_shown_in_part_one_with_its_reasons() -> None:
    reason = "users: 9 of 10 live objects would change or go (90%, above the 10% limit)"
    changes = tuple(Change("users", f"u{i:04}", Action.disable, removal=True) for i in range(900))
    plan = Plan(changes, brake=BrakeVerdict((reason,)))
    text = format_text(plan)
    assert f"Safety brake: apply refuses this plan without --force: {reason}." in text
    parts = markdown_parts(plan, limit=5_000)
    assert len(parts) > 1
    assert "Safety brake: holds" in parts[0] and "90%, above the 10% limit" in parts[0]


def test_asserted_values_are_listed_apart_in_text_and_markdown() -> None:
    plan = Plan((CREATE,), asserted=(RULE,), brake=BrakeVerdict())
    text = format_text(plan)
    assert "Asserted on every apply" in text and '~ automation_rules["102"] (disable)' in text
    assert "1 value asserted on every apply, not counted as changes." in text
    markdown = format_markdown(plan)
    assert "### Asserted on every apply (1)" in markdown
    assert '- `automation_rules["102"]` (disable)' in markdown
    assert "not in the counts, the exit code or the safety brake" in markdown
    # Not counted: the table totals the one create only.
    assert "| **total** | **1** | **0** | **0** | **0** | **0** |" in markdown


def test_many_asserted_values_continue_in_later_parts_and_none_is_dropped() -> None:
    rules = tuple(
        Change("automation_rules", str(i), Action.enable, asserted=True) for i in range(3_000)
    )
    parts = markdown_parts(Plan((), asserted=rules), limit=10_000)
    assert len(parts) > 1 and all(len(p) <= 10_000 for p in parts)
    whole = "".join(parts)
    assert all(f'`automation_rules["{i}"]` (enable)' in whole for i in range(3_000))


def test_an_implicit_technician_is_named_once_in_text_and_markdown() -> None:
    plan = Plan((), notes=(HELEN,))
    text = format_text(plan)
    assert text.count("helen has access through the administrator role") == 1
    assert 'Note: users["helen"]: helen has access through' in text
    markdown = format_markdown(plan)
    assert markdown.count("helen has access through the administrator role") == 1
    assert "### Notes (1)" in markdown and "**Remedy:** nothing to do" in markdown
