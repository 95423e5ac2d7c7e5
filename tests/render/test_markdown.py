"""The Markdown comments: each part below its limit whatever the plan, every change in
them, well-formed (checked by a CommonMark parser, not only by counting), and safe
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

from reconciler.plans import Action, Change, FieldChange, Plan, Ref, address, error, warning
from reconciler.render import format_markdown, markdown_parts
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


@dataclass
class Comment:
    lines: list[str]  # the non-blank lines of its diff code blocks, in order
    items: list[str]  # list items (removals, errors, warnings), as text


def read_comment(markdown: str) -> Comment:
    """Parse one part as GitHub would and check its structure on the way."""
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
    # No block of the values' making: one title, at most the seven lists' headings (brake,
    # removals, errors, warnings, asserted, notes, unmanaged), no quote, no rule and no
    # indented code.
    count = Counter(t.tag for t in tokens if t.nesting == 1 or t.type in ("hr", "code_block"))
    assert count["h1"] == 0 and count["h2"] == 1 and count["h3"] <= 7
    assert count["ul"] <= 7 and count["ol"] == 0 and count["blockquote"] == 0
    assert count["hr"] == 0 and sum(t.type == "code_block" for t in tokens) == 0
    # Nothing outside the code blocks is HTML of the values' making.
    html = PARSER.render(markdown)
    tags = {m.lower() for m in re.findall(r"</?([A-Za-z][A-Za-z0-9-]*)", html)}
    assert tags <= ALLOWED_TAGS, tags - ALLOWED_TAGS
    prose = unescape(re.sub(r"<(pre|code)>.*?</\1>", "", html, flags=re.DOTALL))
    assert re.search(r"@(?!\u200b)", prose) is None, "an @mention could notify someone"
    assert re.search(r"#\d", prose) is None, "a #123 would link an issue"
    lines = [line for t in fences for line in t.content.split("\n") if line]
    items = [
        "".join(c.content for c in tokens[i + 2].children or () if c.type != "html_inline")
        if tokens[i + 2].type == "inline"
        else ""
        for i, t in enumerate(tokens)
        if t.type == "list_item_open"
    ]
    return Comment(lines=lines, items=items)


def read_parts(parts: list[str], limit: int = 60_000) -> Comment:
    """Every part well-formed and within `limit`; their contents together."""
    assert parts
    whole = Comment([], [])
    for number, part in enumerate(parts, start=1):
        assert len(part) <= limit
        assert part.endswith("\n") and not part.endswith("\n\n")
        if len(parts) > 1:
            assert f"(part {number:,} of {len(parts):,})" in part.split("\n")[0]
        comment = read_comment(part)
        whole.lines += comment.lines
        whole.items += comment.items
    return whole


def in_comment_order(plan: Plan) -> list[Change]:
    """Changes grouped by kind (kinds in order of first appearance), as the comment shows."""
    kinds = list(dict.fromkeys(c.kind for c in plan.changes))
    return [c for kind in kinds for c in plan.changes if c.kind == kind]


def expected_lines(plan: Plan) -> list[str]:
    return [line for c in in_comment_order(plan) for line in diff_block(c).split("\n") if line]


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


# -- parts --------------------------------------------------------------------------------


def test_five_thousand_changes_take_several_parts_and_every_change_is_in_them() -> None:
    plan = big_plan(5_000)
    parts = markdown_parts(plan)
    assert len(parts) > 3
    comment = read_parts(parts)
    assert comment.lines == expected_lines(plan)
    # Part 1 counts everything, per kind and action.
    assert "| companies | 250 | 250 | 250 | 250 | 250 |" in parts[0]
    assert "| **total** | **1,000** |" in parts[0]
    # Every removal and disable by address, in the first part(s), before any change.
    removals = [c for c in plan.changes if c.action in (Action.delete, Action.disable)]
    assert comment.items == [f"{c.address} ({c.action.value})" for c in removals]
    assert parts[0].index("### Removals and disables (2,000)") < len(parts[0])


def test_the_parts_use_their_budget() -> None:
    parts = markdown_parts(big_plan(5_000))
    assert all(len(p) > 55_000 for p in parts[:-1])


def test_one_part_when_the_plan_fits_and_the_whole_plan_on_stdout() -> None:
    plan = big_plan(20)
    assert markdown_parts(plan) == [format_markdown(plan)]
    assert "(part" not in format_markdown(plan)
    whole = format_markdown(big_plan(5_000))
    assert len(whole) > 60_000 and read_comment(whole).lines == expected_lines(big_plan(5_000))


def test_a_kind_that_continues_says_so() -> None:
    plan = Plan(
        tuple(
            Change("users", f"u{i}", Action.create, (FieldChange("n", None, i),))
            for i in range(500)
        )
    )
    parts = markdown_parts(plan, limit=5_000)
    assert "<summary>users: 500 to create</summary>" in parts[0]
    assert all("<summary>users (continued)</summary>" in p for p in parts[1:])
    assert read_parts(parts, 5_000).lines == expected_lines(plan)


def test_a_change_longer_than_a_part_continues_between_its_lines() -> None:
    fields = tuple(FieldChange(f"field {i:04d}", None, "x" * 60) for i in range(400))
    plan = Plan((Change("workspace.employees", "big@acme.com", Action.create, fields),))
    parts = markdown_parts(plan, limit=5_000)
    assert len(parts) > 4
    assert read_parts(parts, 5_000).lines == expected_lines(plan)


def test_thousands_of_errors_come_first_and_are_all_there() -> None:
    plan = Plan(
        big_plan(10).changes,
        errors=tuple(
            error(f"problem {i} " + "x" * 50, f'users["u{i}"]', "fix it") for i in range(3_000)
        ),
        warnings=(warning("late warning"),),
    )
    parts = markdown_parts(plan)
    comment = read_parts(parts)
    assert len(comment.items) == 4 + 3_000 + 1  # removals, errors, warnings
    assert comment.lines == expected_lines(plan)
    assert parts[0].index("| **total**") < parts[0].index("### Errors (3,000)")
    assert "### Errors (3,000, continued)" in parts[1]


def test_a_limit_too_small_for_a_part_is_a_programming_error() -> None:
    with pytest.raises(ValueError) as refused:
        markdown_parts(big_plan(3), limit=200)
    assert str(refused.value) == "a Markdown part needs a limit above 153 more characters"


@settings(max_examples=150, deadline=None)
@given(plans, st.integers(min_value=1_500, max_value=6_000), texts)
def test_any_plan_fits_any_limit_and_is_well_formed(plan: Plan, limit: int, title: str) -> None:
    parts = markdown_parts(plan, limit=limit, title=title)
    comment = read_parts(parts, limit)
    assert comment.lines == expected_lines(plan)
    diagnostics = len(plan.errors) + len(plan.warnings)
    removals = sum(
        1 for c in plan.changes if c.removal or c.action in (Action.delete, Action.disable)
    )
    assert len(comment.items) == diagnostics + removals


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
    assert comment.lines == expected_lines(plan) and len(comment.items) == 2
    assert "\x1b" not in markdown
    assert not re.search(r"<script", PARSER.render(markdown), re.IGNORECASE)


def test_the_title_is_escaped_and_the_default_names_the_tool() -> None:
    assert format_markdown(Plan(())).startswith("## reconciler plan\n\n**No changes.")
    titled = format_markdown(Plan(()), title="Plan for <b>prod</b> *now*")
    assert titled.startswith("## Plan for &lt;b&gt;prod&lt;/b&gt; \\*now\\*\n")


@pytest.mark.parametrize(
    ("source", "linked"),
    [
        ("manifests/users.yaml:4", "https://git.example/r/blob/c1/manifests/users.yaml#L4"),
        ("./users.yaml:4", "https://git.example/r/blob/c1/users.yaml#L4"),
        ("/home/ci/manifests/users.yaml:4", None),  # absolute: outside the repository's tree
        ("../manifests/users.yaml:4", None),  # above the working directory
        ("C:\\manifests\\users.yaml:4", None),
    ],
)
def test_source_url_links_only_paths_inside_the_working_directory(
    source: str, linked: str | None
) -> None:
    change = Change("users", "alice", Action.create, source=source)
    markdown = format_markdown(Plan((change,)), source_url="https://git.example/r/blob/c1")
    if linked is None:
        assert "](" not in markdown
        assert f"# from {source}" in markdown  # the block still names the source
    else:
        assert f'[`users["alice"]`]({linked})' in markdown


@pytest.mark.parametrize("length", [300, 301])
def test_an_address_in_the_removals_list_is_shortened_past_300_characters(length: int) -> None:
    key = "k" * (length - len('users[""]'))
    plan = Plan((Change("users", key, Action.delete),))
    removals = format_markdown(plan).split("### Removals and disables (1)\n\n")[1]
    line = removals.split("\n")[0]
    shown = f'users["{key}"]' if length <= 300 else f'users["{key}'[:297] + "..."
    assert line == f"- `{shown}` (delete)"
