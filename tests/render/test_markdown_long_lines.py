"""A change with a line longer than a part's room (a long reason) after a short one: the
Markdown parts close the short piece first, then cut the long line, and together give
back every character of the change, each part within its limit (render/markdown.py,
linked form render/markdown_blocks.py)."""

from __future__ import annotations

import pytest

from reconciler.plans import Action, Change, FieldChange, Plan
from reconciler.render import markdown_parts

COUNTS = (
    "| kind | create | update | delete | enable | disable |\n|:--|--:|--:|--:|--:|--:|\n"
    "| users | 0 | 1 | 0 | 0 | 0 |\n"
    "| **total** | **0** | **1** | **0** | **0** | **0** |\n\n"
    "**Plan: 0 to create, 1 to update, 0 to delete, 0 to enable, 0 to disable.**\n\n"
)
TAIL = '  # from u.yaml:3\n-     phone: "1"\n+     phone: "2"\n'


def _change(words: int) -> Change:
    return Change(
        "users",
        "a",
        Action.update,
        fields=(FieldChange("phone", "1", "2"),),
        source="u.yaml:3",
        reason="why " * words,
    )


def test_a_long_line_after_a_short_one_in_plain_parts() -> None:
    parts = markdown_parts(Plan((_change(150),)), limit=700)
    first = 580  # a part's room for a line, less one for the "\n" the cut adds
    long_line = "  # " + "why " * 150
    assert parts == [
        "## reconciler plan (part 1 of 3)\n\n" + COUNTS
        + '<details><summary>users: 1 to update</summary>\n\n```diff\n! users["a"]\n```\n\n'
        "</details>\n",
        "## reconciler plan (part 2 of 3)\n\n<details><summary>users (continued)</summary>"
        "\n\n```diff\n" + long_line[:first] + "\n```\n\n</details>\n",
        "## reconciler plan (part 3 of 3)\n\n<details><summary>users (continued)</summary>"
        "\n\n```diff\n" + long_line[first:] + "\n" + TAIL + "```\n\n</details>\n",
    ]  # fmt: skip
    assert all(len(part) <= 700 for part in parts)


def test_a_long_line_after_a_short_one_in_linked_parts() -> None:
    parts = markdown_parts(Plan((_change(60),)), limit=600, source_url="https://h")
    head = '[`users["a"]`](https://h/u.yaml#L3)'
    long_line = "  # " + "why " * 60
    assert parts == [
        "## reconciler plan (part 1 of 2)\n\n" + COUNTS
        + f'<details><summary>users: 1 to update</summary>\n\n{head}\n\n```diff\n'
        '! users["a"]\n```\n\n</details>\n',
        "## reconciler plan (part 2 of 2)\n\n<details><summary>users (continued)</summary>"
        f"\n\n{head} (continued)\n\n```diff\n{long_line[:199]}\n```\n\n"
        f"{head} (continued)\n\n```diff\n{long_line[199:]}\n{TAIL}```\n\n</details>\n",
    ]  # fmt: skip


@pytest.mark.parametrize("source_url", [None, "https://h"])
def test_one_part_when_there_is_no_limit(source_url: str | None) -> None:
    (whole,) = markdown_parts(Plan((_change(150),)), limit=None, source_url=source_url)
    assert '```diff\n! users["a"]\n  # ' + "why " * 150 + "\n" + TAIL + "```" in whole


def test_a_line_exactly_a_share_long_is_one_block_of_its_own() -> None:
    change = _change(0)
    change = Change(**{**change.__dict__, "reason": "r" * 195})  # "  # " + 195 + "\n": 200
    parts = markdown_parts(Plan((change,)), limit=600, source_url="https://h")
    head = '[`users["a"]`](https://h/u.yaml#L3)'
    assert parts[1] == (
        "## reconciler plan (part 2 of 2)\n\n<details><summary>users (continued)</summary>"
        f"\n\n{head} (continued)\n\n```diff\n  # {'r' * 195}\n```\n\n"
        f"{head} (continued)\n\n```diff\n{TAIL}```\n\n</details>\n"
    )


def test_a_line_exactly_a_part_long_is_a_part_of_its_own() -> None:
    change = _change(0)
    change = Change(**{**change.__dict__, "reason": "r" * 576})  # "  # " + 576 + "\n": 581
    parts = markdown_parts(Plan((change,)), limit=700)
    more = "## reconciler plan (part {} of 3)\n\n<details><summary>users (continued)</summary>"
    assert parts[1:] == [
        more.format(2) + f"\n\n```diff\n  # {'r' * 576}\n```\n\n</details>\n",
        more.format(3) + f"\n\n```diff\n{TAIL}```\n\n</details>\n",
    ]


def test_lines_that_fill_a_part_exactly_stay_together() -> None:
    change = _change(0)
    change = Change(**{**change.__dict__, "reason": "r" * 563})  # 13 + 568 characters: 581
    parts = markdown_parts(Plan((change,)), limit=700)
    more = "## reconciler plan (part {} of 3)\n\n<details><summary>users (continued)</summary>"
    assert parts[1] == (
        "## reconciler plan (part 2 of 3)\n\n<details><summary>users: 1 to update</summary>"
        f'\n\n```diff\n! users["a"]\n  # {"r" * 563}\n```\n\n</details>\n'
    )
    assert parts[2] == more.format(3) + f"\n\n```diff\n{TAIL}```\n\n</details>\n"
