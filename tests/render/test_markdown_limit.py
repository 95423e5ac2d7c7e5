"""The limit of a Markdown comment (render/markdown.py): at the default, 60,000 characters
a part, the largest plan that fits one comment is one part, one character more is two, and
no part is ever longer than the limit; a limit too small is refused with the exact number
of characters more that it needs, whatever part is too big (the summary, an item, or a
section's frame that leaves less than a line of room); sections are packed into parts
within the budget whatever their order."""

from __future__ import annotations

import re

import pytest

from reconciler.plans import Action, BrakeVerdict, Change, FieldChange, Plan, warning
from reconciler.render import markdown_parts

# 640 users of one 60-character name each, then one whose name is `last` characters:
# with `last` = 80 the plan is the longest one part holds, 26 characters under the limit
# (a part keeps room for the longest header, `(part 99,999 of 99,999)`).
FULL = 80


def users_plan(last: int) -> Plan:
    changes = [
        Change("users", f"u{i:04d}", Action.create, (FieldChange("name", None, "x" * 60),))
        for i in range(640)
    ]
    changes.append(Change("users", "last", Action.create, (FieldChange("name", None, "y" * last),)))
    return Plan(tuple(changes))


def test_the_longest_plan_one_comment_holds_is_one_part() -> None:
    [part] = markdown_parts(users_plan(FULL))
    assert len(part) == 59_974
    assert part.startswith("## reconciler plan\n\n| kind |")
    assert part.endswith('+     name: "' + "y" * FULL + '"\n```\n\n</details>\n')
    assert "<summary>users: 641 to create</summary>" in part


def test_one_character_more_than_one_comment_holds_takes_a_second_part() -> None:
    parts = markdown_parts(users_plan(FULL + 1))
    assert [len(p) for p in parts] == [59_876, 217]
    assert parts[0].startswith("## reconciler plan (part 1 of 2)\n\n")
    assert parts[1] == (
        "## reconciler plan (part 2 of 2)\n\n"
        "<details><summary>users (continued)</summary>\n\n```diff\n"
        '+ users["last"]\n'
        '+     name: "' + "y" * (FULL + 1) + '"\n'
        "```\n\n</details>\n"
    )
    assert all(len(p) <= 60_000 for p in parts)


RULE = Change("automation_rules", "102", Action.disable, asserted=True)
ASSERTED_ONLY = Plan((), asserted=(RULE,))
HELD = Plan(
    (Change("users", "zoe", Action.disable, removal=True),),
    brake=BrakeVerdict(("users: 1 of 1 live objects would change or go (100%)",)),
)
LONG_LINE = Plan((Change("users", "k" * 500, Action.update, fields=(FieldChange("a", 1, 2),)),))
LONG_WARNING = Plan((), warnings=(warning("w" * 900, 'users["a"]'),))
NEEDS = re.compile(r"^a Markdown part needs a limit above ([\d,]+) more characters$")


def _needed(plan: Plan, limit: int) -> int:
    with pytest.raises(ValueError) as refused:
        markdown_parts(plan, limit=limit)
    found = NEEDS.match(str(refused.value))
    assert found is not None, str(refused.value)
    return int(found.group(1).replace(",", ""))


@pytest.mark.parametrize(
    ("plan", "limit", "more"),
    [
        # The asserted values' lead leaves less than 80 characters for their items.
        (ASSERTED_ONLY, 300, 27),
        (ASSERTED_ONLY, 200, 127),
        # The summary alone does not fit.
        (HELD, 100, 302),
        # The changes' section frame leaves no room for a line.
        (LONG_LINE, 250, 38),
        # A list item is never cut: the part must hold it whole.
        (LONG_WARNING, 600, 392),
    ],
)
def test_a_limit_too_small_is_refused_with_what_it_needs_exactly(
    plan: Plan, limit: int, more: int
) -> None:
    assert _needed(plan, limit) == more
    assert _needed(plan, limit + more - 1) == 1
    parts = markdown_parts(plan, limit=limit + more)
    assert all(len(part) <= limit + more for part in parts)


def test_the_asserted_values_at_the_smallest_limit_that_holds_them() -> None:
    assert markdown_parts(ASSERTED_ONLY, limit=327) == [
        "## reconciler plan (part 1 of 2)\n\n"
        "**No changes. The live state matches the manifests.**\n\n"
        "**1 value asserted on every apply, not counted as changes.**\n",
        "## reconciler plan (part 2 of 2)\n\n"
        "### Asserted on every apply (1)\n\n"
        "The API does not show these values, so they are not compared and are not changes "
        "(not in the counts, the exit code or the safety brake); `apply` sends them each "
        "time:\n\n"
        '- `automation_rules["102"]` (disable)\n',
    ]


def test_an_atomic_section_after_others_starts_a_new_part_when_it_does_not_fit() -> None:
    """Packing keeps every part within its budget and loses nothing, whatever the order of
    the sections: today the only atomic section (the summary) comes first, but the packer
    must not rely on it."""
    from reconciler.render.markdown import _pack
    from reconciler.render.markdown_blocks import Section

    items = ("- " + "a" * 38 + "\n", "- " + "b" * 38 + "\n")
    listed = Section(opening="### L\n\n", closing="\n", items=items)
    atomic = Section(opening="S" * 60 + "\n")
    whole_list = "### L\n\n" + "".join(items) + "\n"
    budget = 120  # the list (90 characters) and the summary (61) do not fit together
    parts = _pack([listed, atomic], budget)
    assert parts == [whole_list, "S" * 60 + "\n"]
    assert all(len(part) <= budget for part in parts)
    # With room for both, they share one part.
    assert _pack([listed, atomic], 200) == [whole_list + "S" * 60 + "\n"]
