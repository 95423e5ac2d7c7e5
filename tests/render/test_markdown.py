"""The Markdown comment: below its limit whatever the plan, cut only between whole
changes, well-formed (checked by a CommonMark parser, not only by counting), and safe
whatever text the manifests and the live API hold."""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from html import unescape

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from markdown_it import MarkdownIt

from reconciler.changes import Action, Change, FieldChange, Plan, Ref, address, error, warning
from reconciler.render import format_markdown
from reconciler.render.markdown import diff_block
from tests.render.strategies import plans, texts

PARSER = MarkdownIt("commonmark", {"html": True}).enable("table")
ALLOWED_TAGS = {
    "h2",
    "h3",
    "p",
    "strong",
    "table",
    "thead",
    "tbody",
    "tr",
    "th",
    "td",
    "ul",
    "li",
    "code",
    "pre",
    "details",
    "summary",
    "br",
    "blockquote",
}
CUT_CHANGES = re.compile(r"Not shown:\*\* ([\d,]+) of [\d,]+ changes?\b")
CUT_DIAGNOSTICS = re.compile(r"([\d,]+) of [\d,]+ errors and warnings")


@dataclass
class Comment:
    blocks: list[str]  # the changes shown, one per block of a diff code block
    items: int  # errors and warnings shown
    changes_cut: int
    diagnostics_cut: int


def read_comment(markdown: str) -> Comment:
    """Parse the comment as GitHub would and check its structure on the way."""
    tokens = PARSER.parse(markdown)
    fences = [t for t in tokens if t.type == "fence"]
    assert all(t.info == "diff" for t in fences)
    # Each code block sits in its own <details>, opened and closed outside the block.
    html_blocks = [t.content for t in tokens if t.type == "html_block"]
    opened = [b for b in html_blocks if b.startswith("<details><summary>")]
    closed = [b for b in html_blocks if b.strip() == "</details>"]
    assert len(opened) == len(closed) == len(fences)
    assert all(b.count("\n") == 1 and b.rstrip().endswith("</summary>") for b in opened)
    assert "<details open" not in markdown  # folded
    # No block of the values' making: one title, at most the two lists' headings, the
    # note as the only quote, no rule and no indented code.
    count = Counter(t.tag for t in tokens if t.nesting == 1 or t.type in ("hr", "code_block"))
    assert count["h1"] == 0 and count["h2"] == 1 and count["h3"] <= 2
    assert count["ul"] <= 2 and count["ol"] == 0
    assert count["blockquote"] == (1 if "> **Not shown:**" in markdown else 0)
    assert count["hr"] == 0 and sum(t.type == "code_block" for t in tokens) == 0
    # Nothing outside the code blocks is HTML of the values' making.
    html = PARSER.render(markdown)
    tags = {m.lower() for m in re.findall(r"</?([A-Za-z][A-Za-z0-9-]*)", html)}
    assert tags <= ALLOWED_TAGS, tags - ALLOWED_TAGS
    prose = unescape(re.sub(r"<(pre|code)>.*?</\1>", "", html, flags=re.DOTALL))
    assert re.search(r"@(?!\u200b)", prose) is None, "an @mention could notify someone"
    assert re.search(r"#\d", prose) is None, "a #123 would link an issue"
    blocks = [b for t in fences for b in t.content.rstrip("\n").split("\n\n") if t.content]
    items = sum(1 for t in tokens if t.type == "list_item_open")
    changes_cut = CUT_CHANGES.search(markdown)
    diagnostics_cut = CUT_DIAGNOSTICS.search(markdown)
    return Comment(
        blocks=blocks,
        items=items,
        changes_cut=int(changes_cut.group(1).replace(",", "")) if changes_cut else 0,
        diagnostics_cut=int(diagnostics_cut.group(1).replace(",", "")) if diagnostics_cut else 0,
    )


def in_comment_order(plan: Plan) -> list[Change]:
    """Changes grouped by kind (kinds in order of first appearance), as the comment shows."""
    kinds = list(dict.fromkeys(c.kind for c in plan.changes))
    return [c for kind in kinds for c in plan.changes if c.kind == kind]


def big_plan(count: int) -> Plan:
    actions = list(Action)
    changes = []
    for i in range(count):
        action = actions[i % len(actions)]
        kind = ("companies", "users", "assets", "automation_rules")[i % 4]
        fields = (
            FieldChange("notes", f"note {i}", f"a longer note for object number {i}"),
            FieldChange("company_id", None, Ref(address("companies", f"Company {i}"))),
        )
        changes.append(Change(kind, f"object-{i:05d}", action, fields, reason=f"reason {i}"))
    return Plan(tuple(changes), live_digest="sha256:big")


# -- the limit --------------------------------------------------------------------------


def test_five_thousand_changes_stay_below_the_limit_and_say_what_was_cut() -> None:
    plan = big_plan(5_000)
    markdown = format_markdown(plan)
    assert len(markdown) < 60_000
    comment = read_comment(markdown)
    assert 0 < len(comment.blocks) < 5_000
    assert comment.changes_cut == 5_000 - len(comment.blocks)
    assert f"Not shown:** {comment.changes_cut:,} of 5,000 changes" in markdown
    assert "reconciler plan --format json" in markdown and "artifact" in markdown
    # Whole changes, the first ones in the comment's order, each exactly as rendered alone.
    expected = [diff_block(c).rstrip("\n") for c in in_comment_order(plan)]
    assert comment.blocks == expected[: len(comment.blocks)]
    # The summary table still counts everything.
    assert "| create | 1,000 |" in markdown


def test_the_budget_is_used_not_wasted() -> None:
    markdown = format_markdown(big_plan(5_000))
    assert len(markdown) > 55_000


def test_a_section_that_is_cut_says_how_many_of_its_changes_it_shows() -> None:
    plan = Plan(
        tuple(
            Change("users", f"u{i}", Action.create, (FieldChange("n", None, i),))
            for i in range(500)
        )
    )
    markdown = format_markdown(plan, limit=5_000)
    shown = len(read_comment(markdown).blocks)
    assert f"<summary>users: 500 to create ({shown:,} of 500 shown)</summary>" in markdown


def test_errors_come_first_and_are_cut_too_when_there_are_thousands() -> None:
    plan = Plan(
        big_plan(10).changes,
        errors=tuple(
            error(f"problem {i} " + "x" * 50, f'users["u{i}"]', "fix it") for i in range(3_000)
        ),
        warnings=(warning("late warning"),),
    )
    markdown = format_markdown(plan)
    assert len(markdown) < 60_000
    comment = read_comment(markdown)
    assert comment.blocks == []  # the errors took the whole comment
    assert comment.items + comment.diagnostics_cut == 3_001
    assert comment.changes_cut == 10
    assert "Not shown:** 10 of 10 changes and" in markdown
    assert markdown.index("| action | count |") < markdown.index("### Errors (3,000)")


def test_a_limit_too_small_for_the_summary_is_a_programming_error() -> None:
    with pytest.raises(ValueError, match="needs a limit above"):
        format_markdown(big_plan(3), limit=200)


@settings(max_examples=150, deadline=None)
@given(plans, st.integers(min_value=1_500, max_value=6_000), texts)
def test_any_plan_fits_any_limit_and_is_well_formed(plan: Plan, limit: int, title: str) -> None:
    markdown = format_markdown(plan, limit=limit, title=title)
    assert len(markdown) < limit
    assert markdown.endswith("\n") and not markdown.endswith("\n\n")
    comment = read_comment(markdown)
    assert len(comment.blocks) + comment.changes_cut == len(plan.changes)
    assert comment.items + comment.diagnostics_cut == len(plan.errors) + len(plan.warnings)
    expected = [diff_block(c).rstrip("\n") for c in in_comment_order(plan)]
    assert comment.blocks == expected[: len(comment.blocks)]


# -- escaping ---------------------------------------------------------------------------


HOSTILE = [
    "<script>alert(1)</script>",
    "```\n</details>\n<details><summary>x</summary>",
    "````",
    "@octocat",
    "see #12",
    "[link](javascript:alert(1))",
    "| a | b |",
    "\x1b[31mred",
    "**bold** _it_ ~~del~~",
    "line\n\n# heading\n\n- item",
    "<!-- comment",
    "&amp; &lt;",
    "0) starts an ordered list",
    "12. so does this",
    "- a list item",
    "+ another",
    "# a heading",
    "> a quote",
    "---",
    "     indented code",
    "[ref]: http://example.com",
]


@pytest.mark.parametrize("text", HOSTILE)
def test_hostile_text_anywhere_cannot_break_the_comment(text: str) -> None:
    plan = Plan(
        changes=(
            Change(text, text, Action.create, (FieldChange(text, None, text),), reason=text),
            Change("companies", text, Action.update, (FieldChange("notes", text, text + "!"),)),
        ),
        warnings=(warning(text, address("companies", text), text, text),),
        errors=(error(text),),
    )
    markdown = format_markdown(plan, title=text)
    comment = read_comment(markdown)
    assert len(comment.blocks) == 2 and comment.items == 2
    assert "\x1b" not in markdown
    assert not re.search(r"<script", PARSER.render(markdown), re.IGNORECASE)


def test_the_title_is_escaped_and_the_default_names_the_tool() -> None:
    assert format_markdown(Plan(())).startswith("## reconciler plan\n\n| action | count |")
    titled = format_markdown(Plan(()), title="Plan for <b>prod</b> *now*")
    assert titled.startswith("## Plan for &lt;b&gt;prod&lt;/b&gt; \\*now\\*\n")
