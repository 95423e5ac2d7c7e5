"""The Markdown plan a pull request shows (render/markdown.py): the whole document for a
plan with every section (golden file `golden/every_section.md`), and the parts of a long
plan: each within the limit, headed `(part i of n)`, never ending inside a code block,
together holding every line, a kind that starts in a part headed with its counts and
`(continued)` only where it goes on."""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path

import pytest

from reconciler.plans import Action, BrakeVerdict, Change, FieldChange, Plan
from reconciler.render import format_markdown, markdown_parts
from reconciler.render.markdown_blocks import diff_block
from tests.render.test_text_sections import PLAN

GOLDEN = Path(__file__).parent / "golden" / "every_section.md"
HELD = replace(PLAN, brake=BrakeVerdict(("too many", "r*2")))


def test_the_whole_document() -> None:
    assert format_markdown(HELD, title="Plan <prod>") == GOLDEN.read_text(encoding="utf-8")
    assert markdown_parts(HELD, limit=None, title="Plan <prod>") == [
        GOLDEN.read_text(encoding="utf-8")
    ]


def _body(part: str) -> str:
    return part.split("\n\n", 1)[1]


@pytest.mark.parametrize(("limit", "count"), [(900, 3), (1_200, 2), (2_200, 1)])
def test_the_parts_of_a_plan(limit: int, count: int) -> None:
    parts = markdown_parts(HELD, limit=limit, title="Plan <prod>")
    assert len(parts) == count
    if count == 1:
        assert parts == [GOLDEN.read_text(encoding="utf-8")]
        return
    for index, part in enumerate(parts, start=1):
        assert len(part) <= limit
        assert part.startswith(f"## Plan &lt;prod&gt; (part {index} of {count})\n\n")
        assert part.endswith("\n") and not part.endswith("\n\n")
        assert part.count("```") % 2 == 0  # no part ends inside a code block
        assert part.count("<details>") == part.count("</details>")
    whole = GOLDEN.read_text(encoding="utf-8")
    lines = [line for part in parts for line in _body(part).splitlines() if line]
    for line in whole.splitlines()[1:]:
        if line and "continued" not in line:
            assert line in lines


def _long_plan(fields: int) -> Plan:
    return Plan(
        changes=(
            Change(
                "users",
                "a",
                Action.update,
                fields=tuple(FieldChange(f"f{i}", "x" * 60, "y" * 60) for i in range(fields)),
            ),
        )
    )


def test_a_kind_that_starts_in_a_new_part_is_headed_with_its_counts() -> None:
    parts = markdown_parts(_long_plan(30), limit=1_000)
    assert len(parts) == 7
    assert "<details>" not in parts[0]  # the summary alone: the kind does not fit after it
    assert _body(parts[1]).startswith(
        '<details><summary>users: 1 to update</summary>\n\n```diff\n! users["a"]\n'
    )
    for part in parts[2:]:
        assert _body(part).startswith("<details><summary>users (continued)</summary>\n\n```diff\n")
    for part in parts:
        assert len(part) <= 1_000
        assert part.count("```") % 2 == 0
    diff_lines = [
        line
        for part in parts
        for line in part.splitlines()
        if line.startswith(("-     f", "+     f"))
    ]
    assert len(diff_lines) == 60  # every line of the change, once


def test_the_header_is_measured_for_the_most_parts() -> None:
    parts = markdown_parts(_long_plan(200), limit=1_000)
    assert len(parts) > 9
    assert all(len(part) <= 1_000 for part in parts)
    assert parts[9].startswith(f"## reconciler plan (part 10 of {len(parts)})\n\n")


@pytest.mark.parametrize("limit", [100, 400])
def test_a_limit_too_small_for_the_summary_is_refused(limit: int) -> None:
    with pytest.raises(
        ValueError, match=r"^a Markdown part needs a limit above [\d,]+ more characters$"
    ):
        markdown_parts(HELD, limit=limit)


def test_a_limit_too_small_for_a_section_is_refused() -> None:
    with pytest.raises(ValueError, match=re.escape("a Markdown part needs a limit above")):
        markdown_parts(_long_plan(2), limit=200)


def test_a_line_longer_than_a_part_is_cut_and_nothing_dropped() -> None:
    change = Change("users", "k" * 2_500, Action.update, fields=(FieldChange("a", 1, 2),))
    parts = markdown_parts(Plan((change,)), limit=1_000)
    assert len(parts) == 4
    assert "<details>" not in parts[0]
    assert _body(parts[1]).startswith("<details><summary>users: 1 to update</summary>\n\n")
    blocks = []
    for part in parts[1:]:
        assert len(part) <= 1_000
        match = re.search(r"```diff\n(.*)```\n\n</details>\n$", part, re.DOTALL)
        assert match is not None, part
        blocks.append(match.group(1))
    assert all(len(line) < 1_000 for block in blocks for line in block.splitlines())
    assert "".join(blocks).replace("\n", "") == diff_block(change).replace("\n", "")
