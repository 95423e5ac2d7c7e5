"""The comment limit's boundary (`markdown_parts`' default, 60,000 characters a part):
the largest plan that fits one comment is one part, one character more is two, and no
part is ever longer than the limit."""

from __future__ import annotations

from reconciler.plans import Action, Change, FieldChange, Plan
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


def test_one_character_more_takes_a_second_part() -> None:
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
