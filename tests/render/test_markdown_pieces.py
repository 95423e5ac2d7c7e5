"""The pieces of the Markdown plan a pull-request comment is made of
(render/markdown_blocks.py): text that can neither format, mention, link an issue, parse
as HTML nor open a block; code spans whose fence outlasts the content's backticks; an
error as a list item; a change as a diff block, with each sign where a reviewer expects."""

from __future__ import annotations

import pytest

from reconciler.plans import Action, Change, Diagnostic, FieldChange
from reconciler.render.markdown_blocks import (
    code_span,
    diagnostic_item,
    diff_block,
    html_text,
    inline,
)


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("plain", "plain"),
        ("a*b_c", "a\\*b\\_c"),
        ("`x`", "\\`x\\`"),
        ("[l](u)", "\\[l\\](u)"),
        ("~~s~~", "\\~\\~s\\~\\~"),
        ("a|b", "a\\|b"),
        ("a & b < c > d", "a &amp; b &lt; c &gt; d"),
        ("@team", "@&#8203;team"),
        ("#12 and #x", "#&#8203;12 and \\#x"),
        ("a\\b", "a\\\\b"),
        ("x\x1b", "x\\\\x1b"),
        # what would open a block, on the first line only
        ("  1. item", "1\\. item"),
        ("12) x", "12\\) x"),
        ("123456789. x", "123456789\\. x"),
        ("1234567890. x", "1234567890. x"),  # ten digits open no list
        ("- item", "\\- item"),
        ("+ x", "\\+ x"),
        ("x - y", "x - y"),
        ("a\nb\n- c", "a<br>b<br>- c"),
    ],
)
def test_text_in_a_comment_stays_text(text: str, shown: str) -> None:
    assert inline(text) == shown


def test_text_inside_html_has_entities_and_no_mentions() -> None:
    assert (
        html_text("<b>@x</b> #1 & y\x07") == "&lt;b&gt;@&#8203;x&lt;/b&gt; #&#8203;1 &amp; y\\x07"
    )
    assert html_text("q\"'") == "q\"'"


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("a", "`a`"),
        ("", "``"),
        ("a`b", "``a`b``"),
        ("a``b`", "``` a``b` ```"),
        ("`a", "`` `a ``"),
        ("a ", "` a  `"),
        (" a", "`  a `"),
        ("a\tb", "`a\\tb`"),
    ],
)
def test_a_code_span_is_fenced_longer_than_what_it_holds(text: str, shown: str) -> None:
    assert code_span(text) == shown


@pytest.mark.parametrize(
    ("diagnostic", "item"),
    [
        (
            Diagnostic("error", "m\nn", 'users["a"]', "fix *it*", "u.yaml:1:2"),
            '- `users["a"]` (at `u.yaml:1:2`): m<br>n<br>**Remedy:** fix \\*it\\*\n',
        ),
        (Diagnostic("warning", "m", location="l"), "- (at `l`): m\n"),
        (Diagnostic("warning", "m", address="a"), "- `a`: m\n"),
        (Diagnostic("note", "@m"), "- @&#8203;m\n"),
        (Diagnostic("note", "x" * 1_000), "- " + "x" * 1_000 + "\n"),
        (Diagnostic("note", "x" * 1_001), "- " + "x" * 666 + "..." + "x" * 331 + "\n"),
        (
            Diagnostic("note", "m", remedy="r" * 1_001),
            "- m<br>**Remedy:** " + "r" * 666 + "..." + "r" * 331 + "\n",
        ),
    ],
)
def test_an_error_or_warning_as_one_list_item(diagnostic: Diagnostic, item: str) -> None:
    assert diagnostic_item(diagnostic) == item


@pytest.mark.parametrize(
    ("change", "block"),
    [
        (
            Change(
                "users",
                "a",
                Action.create,
                fields=(FieldChange("notes", None, "a\nb"), FieldChange("name", None, "A")),
                reason="r1\nr2",
                source="u.yaml:3",
            ),
            '+ users["a"]\n  # r1\n  # r2\n  # from u.yaml:3\n+     notes: <<EOT\n+         a\n'
            '+         b\n+     EOT\n+     name:  "A"\n',
        ),
        (
            Change(
                "users",
                "a",
                Action.update,
                fields=(FieldChange("notes", "a\nb", "a\nc"), FieldChange("name", "A", "B")),
            ),
            '! users["a"]\n      notes: <<EOT\n          a\n-         b\n+         c\n      EOT\n'
            '-     name:  "A"\n+     name:  "B"\n',
        ),
        (
            Change("users", "a", Action.delete, fields=(FieldChange("notes", "a\nb", None),)),
            '- users["a"]\n-     notes: <<EOT\n-         a\n-         b\n-     EOT\n',
        ),
        (
            Change("rules", "1", Action.disable, fields=(FieldChange("enabled", True, False),)),
            '! rules["1"] (disable)\n-     enabled: true\n+     enabled: false\n',
        ),
        (
            Change("rules", "1", Action.enable, fields=(FieldChange("enabled", False, True),)),
            '! rules["1"] (enable)\n-     enabled: false\n+     enabled: true\n',
        ),
        (
            Change(
                "users",
                "a",
                Action.update,
                fields=(FieldChange("tags", [f"tag-{i:03}" for i in range(30)], []),),
            ),
            '! users["a"]\n      tags: 30 items -> 0 items\n'
            + "".join(f'-         "tag-{i:03}"\n' for i in range(30)),
        ),
    ],
)
def test_a_change_as_a_diff_block(change: Change, block: str) -> None:
    assert diff_block(change) == block
