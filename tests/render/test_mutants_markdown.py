"""Markdown comments under a limit (render/markdown.py): a limit too small is refused with
the exact number of characters more that it needs, whatever part is too big (the
summary, an item, or a section's frame that leaves less than a line of room)."""

from __future__ import annotations

import re

import pytest

from reconciler.plans import Action, BrakeVerdict, Change, FieldChange, Plan, warning
from reconciler.render import markdown_parts

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
    must not rely on it (mutation seeds 707 and 808 found this branch untested)."""
    from reconciler.render.markdown import _pack
    from reconciler.render.markdown_sections import Section

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
