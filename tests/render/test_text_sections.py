"""The text plan as a terminal shows it (render/text.py), every section
at once: a change's reasons, source and operations, the asserted values, the errors,
warnings and notes with where and how to fix, the coverage, the summary lines and the
safety brake's verdict; then the colours of the same characters, and each summary line's
wording at its edges (one or several, none, errors without changes)."""

from __future__ import annotations

import pytest

from reconciler.plans import (
    Action,
    BrakeVerdict,
    Change,
    Diagnostic,
    FieldChange,
    Operation,
    Plan,
    Ref,
)
from reconciler.plans.coverage import Coverage, KindCoverage
from reconciler.render.text import (
    change_lines,
    format_diagnostics,
    format_text,
    operation_text,
    summary_text,
)

PLAN = Plan(
    changes=(
        Change(
            "companies",
            "Acme",
            Action.create,
            fields=(FieldChange("name", None, "Acme"), FieldChange("notes", None, "a\nb")),
            operations=(
                Operation(
                    "helpdesk", "POST", "/api/AddCompany", {"name": "Acme"}, description="create"
                ),
            ),
            reason="first\nsecond",
            source="c.yaml:3",
        ),
        Change(
            "users",
            "gone",
            Action.delete,
            fields=(FieldChange("email", "g@x.com", None),),
            removal=True,
        ),
        Change("assets", "S1", Action.disable, fields=(FieldChange("enabled", True, False),)),
    ),
    warnings=(
        Diagnostic("warning", "look\nhere", 'users["x"]', "do this\nand that", "u.yaml:1:1"),
    ),
    errors=(Diagnostic("error", "bad"),),
    notes=(Diagnostic("note", "fyi"),),
    brake=BrakeVerdict(()),
    asserted=(
        Change(
            "automation_rules",
            "101",
            Action.enable,
            fields=(FieldChange("enabled", None, True),),
            asserted=True,
        ),
    ),
    coverage=Coverage(
        {
            "companies": KindCoverage(3, 2, ("Old",)),
            "users": KindCoverage(12, 0, tuple(f"u{i}" for i in range(12))),
        },
        {"assets": "--target"},
    ),
)

DIAGNOSTICS = """\
Error: bad

Warning: users["x"]: look
  here
  at u.yaml:1:1
  remedy: do this
    and that

Note: fyi

"""

CHANGES = """\
+ companies["Acme"]
    # first
    # second
    # from c.yaml:3
    name:  "Acme"
    notes: <<EOT
        a
        b
      EOT
    operations:
      helpdesk POST /api/AddCompany {name: "Acme"}  # create

- users["gone"]
    email: "g@x.com"

~ assets["S1"] (disable)
    enabled: true -> false

Asserted on every apply (the API does not show these values, so they are not compared and \
are not changes; apply sends them each time):
  ~ automation_rules["101"] (enable)
      enabled: null -> true

"""

REST = """\
Coverage (live objects the manifests manage; the others are unmanaged, not changes):
  companies  2 of 3 (66.6%); unmanaged: "Old"
  users      0 of 12 (0%); unmanaged: "u0", "u1", "u2", "u3", "u4", "u5", "u6", "u7", "u8", \
"u9" and 2 more (the JSON plan lists every one)
  assets     not read in full: --target

Plan: 1 to create, 0 to update, 1 to delete, 0 to enable, 1 to disable.
1 value asserted on every apply, not counted as changes.
1 error: nothing can be applied until it is fixed.
Safety brake: passes (2 removals or disables, 1 deletion that cannot be undone, within \
settings.safety): apply goes ahead.
"""


def test_every_section_of_the_text_plan() -> None:
    assert format_text(PLAN, show_operations=True) == CHANGES + DIAGNOSTICS + REST


def test_without_operations_and_with_the_diagnostics_apart() -> None:
    without = CHANGES.replace(
        '    operations:\n      helpdesk POST /api/AddCompany {name: "Acme"}  # create\n', ""
    )
    assert format_text(PLAN, diagnostics=False) == without + REST
    assert format_diagnostics(PLAN) == DIAGNOSTICS
    assert format_diagnostics(Plan(())) == ""


def test_the_colours_of_the_text_plan() -> None:
    coloured = format_text(PLAN, color=True)
    for line in [
        '\x1b[32m+\x1b[0m \x1b[32mcompanies["Acme"]\x1b[0m\n',
        "\x1b[2m    # first\x1b[0m\n",
        "\x1b[2m    # from c.yaml:3\x1b[0m\n",
        '\x1b[31m-\x1b[0m \x1b[31musers["gone"]\x1b[0m\n',
        '\x1b[33m~\x1b[0m \x1b[33massets["S1"] (disable)\x1b[0m\n',
        "\x1b[1mAsserted on every apply (",
        "\x1b[1;31mError:\x1b[0m bad\n",
        '\x1b[1;33mWarning:\x1b[0m users["x"]: look\n',
        "\x1b[1m  remedy:\x1b[0m do this\n",
        "\x1b[1mNote:\x1b[0m fyi\n",
        "\x1b[1mCoverage (live objects",
        "\x1b[1mPlan: 1 to create, 0 to update, 1 to delete, 0 to enable, 1 to disable.\x1b[0m\n",
        "\x1b[1;31m1 error: nothing can be applied until it is fixed.\x1b[0m\n",
        # a brake that passes is not highlighted
        "\nSafety brake: passes (2 removals",
    ]:
        assert line in coloured
    plain = "".join(part.split("m", 1)[-1] if part else "" for part in coloured.split("\x1b["))
    assert plain == format_text(PLAN)


def test_the_colours_of_a_line_diff_a_ref_and_a_brake_that_holds() -> None:
    plan = Plan(
        changes=(
            Change(
                "users",
                "a",
                Action.update,
                fields=(
                    FieldChange("notes", "a\nb", "a\nc"),
                    FieldChange("company", None, Ref('companies["X"]')),
                ),
            ),
        ),
        brake=BrakeVerdict(("r1", "r2")),
    )
    assert format_text(plan, color=True) == (
        '\x1b[33m~\x1b[0m \x1b[33musers["a"]\x1b[0m\n'
        "    notes:   <<EOT\n"
        "        a\n"
        "      \x1b[31m-\x1b[0m b\n"
        "      \x1b[32m+\x1b[0m c\n"
        "      EOT\n"
        "    company: null -> \x1b[2m(known after apply)\x1b[0m\n"
        "\n"
        "\x1b[1mPlan: 0 to create, 1 to update, 0 to delete, 0 to enable, 0 to disable.\x1b[0m\n"
        "\x1b[1;33mSafety brake: apply refuses this plan without --force: r1; r2.\x1b[0m\n"
    )


REMOVAL = Change("users", "a", Action.update, removal=True)
DELETE = Change("users", "b", Action.delete)
UPDATE = Change("users", "c", Action.update)


@pytest.mark.parametrize(
    ("plan", "summary"),
    [
        (Plan(()), "No changes. The live state matches the manifests."),
        (
            Plan((), errors=(Diagnostic("error", "x"), Diagnostic("error", "y"))),
            "No changes planned.\n2 errors: nothing can be applied until they are fixed.",
        ),
        (
            Plan((), asserted=(REMOVAL, UPDATE)),
            "No changes. The live state matches the manifests.\n"
            "2 values asserted on every apply, not counted as changes.",
        ),
        (
            Plan((UPDATE,), brake=BrakeVerdict(())),
            "Plan: 0 to create, 1 to update, 0 to delete, 0 to enable, 0 to disable.",
        ),
        (
            Plan((REMOVAL,), brake=BrakeVerdict(())),
            "Plan: 0 to create, 1 to update, 0 to delete, 0 to enable, 0 to disable.\n"
            "Safety brake: passes (1 removal or disable, within settings.safety): apply goes "
            "ahead.",
        ),
        (
            Plan((DELETE,), brake=BrakeVerdict(())),
            "Plan: 0 to create, 0 to update, 1 to delete, 0 to enable, 0 to disable.\n"
            "Safety brake: passes (1 removal or disable, 1 deletion that cannot be undone, "
            "within settings.safety): apply goes ahead.",
        ),
        (
            Plan((DELETE, Change("users", "d", Action.delete)), brake=BrakeVerdict(())),
            "Plan: 0 to create, 0 to update, 2 to delete, 0 to enable, 0 to disable.\n"
            "Safety brake: passes (2 removals or disables, 2 deletions that cannot be undone, "
            "within settings.safety): apply goes ahead.",
        ),
        (
            Plan((DELETE,)),  # read back from a file: nobody judged it
            "Plan: 0 to create, 0 to update, 1 to delete, 0 to enable, 0 to disable.",
        ),
        (
            Plan((UPDATE,), brake=BrakeVerdict(("more than 30% of users",))),
            "Plan: 0 to create, 1 to update, 0 to delete, 0 to enable, 0 to disable.\n"
            "Safety brake: apply refuses this plan without --force: more than 30% of users.",
        ),
    ],
)
def test_the_summary_lines(plan: Plan, summary: str) -> None:
    assert summary_text(plan) == summary
    assert format_text(plan).endswith(summary + "\n")


@pytest.mark.parametrize(
    ("coverage", "section"),
    [
        (None, ""),
        (Coverage(), ""),
        (
            Coverage(not_read_in_full={"users": "--changed-since", "assets": "a\x1bb"}),
            "Coverage (live objects the manifests manage; the others are unmanaged, not "
            "changes):\n  users   not read in full: --changed-since\n  assets  not read in "
            "full: a\\x1bb\n\n",
        ),
        (
            Coverage(
                {"users": KindCoverage(0, 0), "companies": KindCoverage(1_500, 1_499, ("z",) * 10)}
            ),
            "Coverage (live objects the manifests manage; the others are unmanaged, not "
            "changes):\n  users      0 of 0 (100%)\n  companies  1,499 of 1,500 (99.9%); "
            'unmanaged: "z", "z", "z", "z", "z", "z", "z", "z", "z", "z"\n\n',
        ),
    ],
)
def test_the_coverage_section(coverage: Coverage | None, section: str) -> None:
    plan = Plan((), coverage=coverage)
    assert format_text(plan) == section + "No changes. The live state matches the manifests.\n"


def test_the_colours_of_a_plan_without_changes() -> None:
    assert format_text(Plan(()), color=True) == (
        "\x1b[1mNo changes. The live state matches the manifests.\x1b[0m\n"
    )
    with_errors = Plan((), errors=(Diagnostic("error", "x"),))
    assert format_text(with_errors, color=True).endswith(
        "\x1b[1mNo changes planned.\x1b[0m\n"
        "\x1b[1;31m1 error: nothing can be applied until it is fixed.\x1b[0m\n"
    )


def test_operations_are_shown_for_changes_and_asserted_values_when_asked() -> None:
    rule = Change(
        "automation_rules",
        "101",
        Action.enable,
        operations=(Operation("helpdesk", "POST", "/api/EnableRule", {"id": 101}),),
        asserted=True,
    )
    plan = Plan(PLAN.changes[:1], asserted=(rule,))
    shown = format_text(plan, show_operations=True)
    assert '  ~ automation_rules["101"] (enable)\n      operations:\n' in shown
    assert "        helpdesk POST /api/EnableRule {id: 101}\n" in shown
    assert "operations:" not in format_text(plan)
    assert "operations:" not in "".join(t for line in change_lines(rule) for t, _ in line)
    coloured = format_text(plan, color=True, show_operations=True)
    assert "\x1b[2m    operations:\x1b[0m\n" in coloured


def test_an_operation_shows_its_params_up_to_ten_thousand_characters() -> None:
    # five digits and ", ": 1,428 of them take 10,001 characters with the last one's 5
    operation = Operation("helpdesk", "POST", "/api/X", {"ids": list(range(10_000, 11_430))})
    text = operation_text(operation)
    assert text.startswith("helpdesk POST /api/X {ids: [10000, 10001, ")
    assert text.endswith(", 11427, ... 2 more]}")


def test_eleven_unmanaged_objects_show_ten_and_one_more() -> None:
    coverage = Coverage({"users": KindCoverage(11, 0, tuple(f"u{i}" for i in range(11)))})
    assert format_text(Plan((), coverage=coverage)).splitlines()[1] == (
        '  users  0 of 11 (0%); unmanaged: "u0", "u1", "u2", "u3", "u4", "u5", "u6", "u7", '
        '"u8", "u9" and 1 more (the JSON plan lists every one)'
    )
