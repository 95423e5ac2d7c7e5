"""How one value, one field and one headline read in a plan (reconciler/render/values.py),
as tables of value -> the exact characters a reviewer sees: escapes, where a long value
is cut and what it says it hid, the limits at and one past their edge, line diffs of
multi-line values, the items a long list or dict gained and lost, aligned field names."""

from __future__ import annotations

from typing import Any

import pytest

from reconciler.plans import Action, Change, FieldChange, Ref
from reconciler.plans.text import clean, shorten, summary_counts
from reconciler.render.values import (
    FieldView,
    clean_lines,
    field_view,
    format_value,
    headline,
    is_multiline,
    label,
    label_width,
    line_diff,
    plural,
    quote,
    text_lines,
)

CLEANED = [
    ("plain text", "plain text"),
    ("a\nb\rc\td", "a\\nb\\rc\\td"),
    ("\x00\x1b[31m\x1f", "\\x00\\x1b[31m\\x1f"),
    (" ~", " ~"),  # the printable edges of C0 and DEL
    ("\x7f\x80\x9f", "\\x7f\\x80\\x9f"),
    ("\xa0é", "\xa0é"),  # past the C1 controls: printable
    ("\u2028\u2029", "\\u2028\\u2029"),
    ("\u202a\u202e", "\\u202a\\u202e"),  # bidi embeddings and overrides
    ("\u2066\u2069", "\\u2066\\u2069"),  # bidi isolates
    ("\u2027\u202f\u2065\u206a", "\u2027\u202f\u2065\u206a"),  # their neighbours
]


@pytest.mark.parametrize(("text", "shown"), CLEANED)
def test_control_characters_are_shown_as_escapes(text: str, shown: str) -> None:
    assert clean(text) == shown


def test_a_message_keeps_its_lines_each_cleaned() -> None:
    assert clean_lines("first\tline\nsecond \x1b") == ["first\\tline", "second \\x1b"]


@pytest.mark.parametrize(
    ("text", "limit", "shown"),
    [
        ("abcdefghij", 10, "abcdefghij"),  # at the limit: whole
        ("abcdefghijk", 10, "abcdef...k"),  # one past: two thirds before, the rest after
        ("abcdefghijklmnopqrstuvwxyz", 12, "abcdefgh...z"),
        ("abcdefghijklmnopqrstuvwxyz", 15, "abcdefghij...yz"),
    ],
)
def test_a_long_text_loses_its_middle(text: str, limit: int, shown: str) -> None:
    assert shorten(text, limit) == shown


@pytest.mark.parametrize(
    ("value", "shown"),
    [
        ("x" * 100, '"' + "x" * 100 + '"'),
        ("x" * 101, '"' + "x" * 66 + "..." + "x" * 31 + '" (101 characters)'),
        ("y" * 1234, '"' + "y" * 66 + "..." + "y" * 31 + '" (1,234 characters)'),
        ('say "hi" \\ bye', '"say \\"hi\\" \\\\ bye"'),
        ("tab\there", '"tab\\there"'),
    ],
)
def test_a_string_is_quoted_and_says_how_long_it_was_when_cut(value: str, shown: str) -> None:
    assert quote(value) == shown


class Opaque:
    def __str__(self) -> str:
        return "opaque\x1b" + "z" * 120


@pytest.mark.parametrize(
    ("value", "shown"),
    [
        (Ref('companies["Acme"]'), "(known after apply)"),
        (None, "null"),
        (True, "true"),
        (False, "false"),
        (0, "0"),
        (12, "12"),
        (1.5, "1.5"),
        ("text", '"text"'),
        ([], "[]"),
        (["a", 1, None], '["a", 1, null]'),
        (("a", "b"), '["a", "b"]'),
        ({"b", "a"}, '["a", "b"]'),
        (frozenset({2, 1}), "[1, 2]"),
        ({}, "{}"),
        ({"name": "Acme", "id": 3}, '{name: "Acme", id: 3}'),
        ({"two words": 1, "_x9": 2, "9x": 3}, '{"two words": 1, _x9: 2, "9x": 3}'),
        ({"a-b": True}, '{"a-b": true}'),
        ({"nested": {"list": [Ref('users["x"]')]}}, "{nested: {list: [(known after apply)]}}"),
        (Opaque(), "opaque\\x1b" + "z" * 59 + "..." + "z" * 31),
    ],
)
def test_a_value_on_one_line(value: Any, shown: str) -> None:
    assert format_value(value) == shown


@pytest.mark.parametrize(
    ("value", "limit", "shown"),
    [
        # items of 3 characters: each takes 5 with ", "; the first is always shown
        (["aaaaa"], 2, '["aaaaa"]'),
        ([1, 2, 3], 7, "[1, 2, 3]"),
        ([11, 22, 33], 10, "[11, 22, 33]"),  # 2 + ", " twice, then 2: within 10
        ([11, 22, 33], 9, "[11, 22, ... 1 more]"),
        ([11, 22, 33, 44], 3, "[11, ... 3 more]"),
        ({"a": 1, "b": 2}, 5, "{a: 1, ... 1 more}"),
    ],
)
def test_a_long_collection_says_how_many_items_it_left_out(
    value: Any, limit: int, shown: str
) -> None:
    assert format_value(value, limit) == shown


def test_a_collection_is_cut_at_two_hundred_characters_by_default() -> None:
    items = ["x" * 18] * 12  # 20 characters each quoted, 22 with ", "
    shown = format_value(items)
    assert shown == "[" + ", ".join(['"' + "x" * 18 + '"'] * 9) + ", ... 3 more]"


@pytest.mark.parametrize(
    ("value", "multiline"),
    [
        ("one line", False),
        ("one line\n", False),  # a trailing newline is shown as \n in the quotes
        ("one line\n\n", False),
        ("two\nlines", True),
        ("two\nlines\n", True),
        (["a\nb"], False),
        (None, False),
    ],
)
def test_which_values_are_shown_line_by_line(value: Any, multiline: bool) -> None:
    assert is_multiline(value) is multiline


def test_the_lines_of_a_multiline_value_are_cleaned_cut_and_counted() -> None:
    long_line = "l" * 161
    assert text_lines(f"a\tb\n{long_line}") == ["a\\tb", "l" * 106 + "..." + "l" * 51]
    assert text_lines("\n".join(str(i) for i in range(40))) == [str(i) for i in range(40)]
    many = text_lines("\n".join(str(i) for i in range(43)))
    assert many == [*(str(i) for i in range(40)), "... 3 more lines"]


def _numbered(count: int, changed: dict[int, str] | None = None) -> str:
    lines = [f"line {i}" for i in range(count)]
    for at, text in (changed or {}).items():
        lines[at] = text
    return "\n".join(lines)


@pytest.mark.parametrize(
    ("before", "after", "rows"),
    [
        ("a\nb", "a\nc", [(" ", "a"), ("-", "b"), ("+", "c")]),
        ("a\nb", "x\nb", [("-", "a"), ("+", "x"), (" ", "b")]),
        # a change in the middle: one line of context each side, the rest counted
        (
            _numbered(9),
            _numbered(9, {4: "new 4"}),
            [
                (" ", "... 3 unchanged lines"),
                (" ", "line 3"),
                ("-", "line 4"),
                ("+", "new 4"),
                (" ", "line 5"),
                (" ", "... 3 unchanged lines"),
            ],
        ),
        # two changes three lines apart: the stretch between them shown whole
        (
            _numbered(7, {}),
            _numbered(7, {1: "new 1", 5: "new 5"}),
            [
                (" ", "line 0"),
                ("-", "line 1"),
                ("+", "new 1"),
                (" ", "line 2"),
                (" ", "line 3"),
                (" ", "line 4"),
                ("-", "line 5"),
                ("+", "new 5"),
                (" ", "line 6"),
            ],
        ),
        # four lines apart: two of them counted (a count never stands for one line)
        (
            _numbered(8),
            _numbered(8, {1: "new 1", 6: "new 6"}),
            [
                (" ", "line 0"),
                ("-", "line 1"),
                ("+", "new 1"),
                (" ", "line 2"),
                (" ", "... 2 unchanged lines"),
                (" ", "line 5"),
                ("-", "line 6"),
                ("+", "new 6"),
                (" ", "line 7"),
            ],
        ),
        # an unchanged first stretch of two: shown whole (one line kept, one counted
        # would say no more); of three: the one beside the change kept, two counted
        ("a\nb\nc", "a\nb\nC", [(" ", "a"), (" ", "b"), ("-", "c"), ("+", "C")]),
        (
            "a\nb\nc\nd",
            "a\nb\nc\nD",
            [(" ", "... 2 unchanged lines"), (" ", "c"), ("-", "d"), ("+", "D")],
        ),
        (
            "A\nb\nc\nd",
            "a\nb\nc\nd",
            [("-", "A"), ("+", "a"), (" ", "b"), (" ", "... 2 unchanged lines")],
        ),
        ("a\tb\nc", "a\tb\nd", [(" ", "a\\tb"), ("-", "c"), ("+", "d")]),
    ],
)
def test_a_multiline_value_is_shown_as_a_line_diff(
    before: str, after: str, rows: list[tuple[str, str]]
) -> None:
    assert line_diff(before, after) == rows


def test_a_long_line_diff_is_cut_at_forty_rows() -> None:
    before = "\n".join(f"old {i}" for i in range(25))
    after = "\n".join(f"new {i}" for i in range(25))
    rows = line_diff(before, after)
    assert rows[:2] == [("-", "old 0"), ("-", "old 1")]
    assert rows[39] == ("+", "new 14")
    assert rows[40:] == [(" ", "... 10 more lines")]
    exactly = line_diff("\n".join("ab"[: i % 2 + 1] for i in range(20)), "")
    assert len(exactly) == 21 and exactly[-1][0] == "+"  # 20 removed, one added: 21 rows


def _field(path: str, before: Any, after: Any, action: Action) -> FieldView:
    return field_view(FieldChange(path, before, after), action)


LONG = "x" * 150


@pytest.mark.parametrize(
    ("before", "after", "action", "view"),
    [
        (None, "Acme", Action.create, FieldView(after='"Acme"')),
        ("Acme", None, Action.delete, FieldView(before='"Acme"')),
        ("Acme", "Acme Ltd", Action.update, FieldView('"Acme"', '"Acme Ltd"')),
        (1, 2, Action.update, FieldView("1", "2")),
        (True, False, Action.disable, FieldView("true", "false")),
        ("a", 2, Action.enable, FieldView('"a"', "2")),
        (
            None,
            "a\nb",
            Action.create,
            FieldView(heading="<<EOT", rows=((" ", "a"), (" ", "b")), closing="EOT"),
        ),
        (
            "a\nb",
            None,
            Action.delete,
            FieldView(heading="<<EOT", rows=((" ", "a"), (" ", "b")), closing="EOT"),
        ),
        (
            "a\nb",
            "a",
            Action.update,
            FieldView(heading="<<EOT", rows=((" ", "a"), ("-", "b")), closing="EOT"),
        ),
        (
            "a",
            "a\nb",
            Action.update,
            FieldView(heading="<<EOT", rows=((" ", "a"), ("+", "b")), closing="EOT"),
        ),
        # a difference in the middle of two long strings: both shown from a little
        # before it, to their end
        (
            LONG,
            LONG[:75] + "Y" + LONG[76:],
            Action.update,
            FieldView(
                '..."' + "x" * 95 + '" (150 characters)',
                '..."' + "x" * 20 + "Y" + "x" * 74 + '" (150 characters)',
            ),
        ),
    ],
)
def test_how_a_field_change_is_shown(
    before: Any, after: Any, action: Action, view: FieldView
) -> None:
    assert _field("notes", before, after, action) == view


@pytest.mark.parametrize(
    ("length", "at", "before", "after"),
    [
        # at the very start, or the last character of the head: the shortened values
        # already differ, and are shown as they are
        (
            150,
            0,
            '"' + "x" * 66 + "..." + "x" * 31 + '" (150 characters)',
            '"Y' + "x" * 65 + "..." + "x" * 31 + '" (150 characters)',
        ),
        (
            150,
            65,
            '"' + "x" * 66 + "..." + "x" * 31 + '" (150 characters)',
            '"' + "x" * 65 + "Y..." + "x" * 31 + '" (150 characters)',
        ),
        # just after the head shown: from 20 characters before it
        (
            150,
            66,
            '..."' + "x" * 100 + '"... (150 characters)',
            '..."' + "x" * 20 + "Y" + "x" * 79 + '"... (150 characters)',
        ),
        # far into a long value: a window of 100 characters, more after it
        (
            300,
            150,
            '..."' + "x" * 100 + '"... (300 characters)',
            '..."' + "x" * 20 + "Y" + "x" * 79 + '"... (300 characters)',
        ),
        # the window ends exactly at the end: nothing more after it
        (
            200,
            120,
            '..."' + "x" * 100 + '" (200 characters)',
            '..."' + "x" * 20 + "Y" + "x" * 79 + '" (200 characters)',
        ),
    ],
)
def test_where_two_long_strings_that_look_alike_are_shown_from(
    length: int, at: int, before: str, after: str
) -> None:
    old = "x" * length
    new = old[:at] + "Y" + old[at + 1 :]
    assert _field("notes", old, new, Action.update) == FieldView(before, after)


def test_two_equal_long_strings_are_shown_as_they_are() -> None:
    assert _field("notes", LONG, LONG, Action.update) == FieldView(quote(LONG), quote(LONG))


def test_long_lists_show_the_items_removed_and_added() -> None:
    before = [f"member-{i:03}@example.com" for i in range(12)]
    after = [*before[1:], "new@example.com", before[5]]
    view = _field("members", before, after, Action.update)
    assert view == FieldView(
        heading="12 items -> 13 items",
        rows=(
            ("-", '"member-000@example.com"'),
            ("+", '"new@example.com"'),
            ("+", '"member-005@example.com"'),
        ),
    )


def test_long_dicts_show_the_entries_removed_and_added() -> None:
    before = {f"field_{i}": "v" * 20 for i in range(9)}
    after = {**before, "field_0": "w"}
    view = _field("custom_fields", before, {"only": 1}, Action.update)
    assert view.heading == "9 entries -> 1 entry"
    view = _field("custom_fields", before, after, Action.update)
    assert view == FieldView(
        heading="9 entries -> 9 entries",
        rows=(("-", 'field_0: "' + "v" * 20 + '"'), ("+", 'field_0: "w"')),
    )


def test_a_long_list_against_a_short_one_and_lists_that_fit() -> None:
    long = [f"item-number-{i:04}" for i in range(15)]
    view = _field("tags", long, ["one"], Action.update)
    assert view.heading == "15 items -> 1 item"
    assert view.rows[-1] == ("+", '"one"')
    assert _field("tags", ["a"], ["a", "b"], Action.update) == FieldView('["a"]', '["a", "b"]')
    assert _field("tags", {"a": 1}, {"a": 2}, Action.update) == FieldView("{a: 1}", "{a: 2}")
    assert _field("tags", long, "text", Action.update).heading == ""  # not two collections


def test_the_rows_of_a_long_collection_delta_are_cut_at_forty() -> None:
    before = [f"old-item-{i:03}" for i in range(30)]
    after = [f"new-item-{i:03}" for i in range(30)]
    view = _field("tags", before, after, Action.update)
    assert len(view.rows) == 41
    assert view.rows[39] == ("+", '"new-item-009"')
    assert view.rows[40] == (" ", "... 20 more")
    fewer = _field("tags", before[:20], after[:20], Action.update)
    assert len(fewer.rows) == 40 and fewer.rows[-1] == ("+", '"new-item-019"')


@pytest.mark.parametrize(
    ("paths", "width"),
    [
        ((), 0),
        (("name",), 5),
        (("name", "email"), 6),
        (("name", "x" * 30), 31),  # up to thirty characters, names are aligned
        (("name", "x" * 31), 5),  # a longer one sticks out
        (("名前",), 5),  # wide characters take two cells
    ],
)
def test_field_names_are_aligned_within_a_change(paths: tuple[str, ...], width: int) -> None:
    assert label_width(tuple(FieldChange(p, 1, 2) for p in paths)) == width


@pytest.mark.parametrize(
    ("path", "width", "shown"),
    [
        ("name", 8, "name:   "),
        ("name", 5, "name:"),
        ("name", 2, "name:"),
        ("名前", 8, "名前:   "),
        ("a\tb", 6, "a\\tb: "),
    ],
)
def test_a_field_name_is_padded_to_the_width(path: str, width: int, shown: str) -> None:
    assert label(path, width) == shown


@pytest.mark.parametrize(
    ("change", "shown"),
    [
        (Change("companies", "Acme", Action.create), 'companies["Acme"]'),
        (Change("companies", "Acme", Action.update), 'companies["Acme"]'),
        (Change("companies", "Acme", Action.delete), 'companies["Acme"]'),
        (Change("automation_rules", "101", Action.enable), 'automation_rules["101"] (enable)'),
        (Change("automation_rules", "101", Action.disable), 'automation_rules["101"] (disable)'),
        (
            Change("users", "new", Action.update, renamed_from="old"),
            'users["new"] (was users["old"])',
        ),
        (Change("users", "a\x1bb", Action.update), 'users["a\\x1bb"]'),
    ],
)
def test_the_headline_of_a_change(change: Change, shown: str) -> None:
    assert headline(change) == shown


def test_the_summary_counts_every_action_in_order() -> None:
    assert summary_counts({"create": 1, "disable": 2}) == (
        "1 to create, 0 to update, 0 to delete, 0 to enable, 2 to disable"
    )


@pytest.mark.parametrize(
    ("count", "shown"), [(0, "0 errors"), (1, "1 error"), (2, "2 errors"), (1200, "1,200 errors")]
)
def test_plural(count: int, shown: str) -> None:
    assert plural(count, "error") == shown


def test_a_collection_fits_in_exactly_two_hundred_characters() -> None:
    # 98 characters quoted, ", ", then 100: exactly 200; one more is one too many
    assert format_value(["a" * 96, "b" * 98]) == '["' + "a" * 96 + '", "' + "b" * 98 + '"]'
    assert format_value(["a" * 96, "b" * 99]) == '["' + "a" * 96 + '", ... 1 more]'


def test_a_diff_of_exactly_forty_rows_is_shown_whole() -> None:
    before = "\n".join(f"old {i}" for i in range(20))
    after = "\n".join(f"new {i}" for i in range(20))
    rows = line_diff(before, after)
    assert len(rows) == 40
    assert rows[-1] == ("+", "new 19")


def test_a_long_text_of_repeated_lines_is_diffed_line_by_line() -> None:
    """Hundreds of lines, many alike (blank ones): only the changed line is shown, not
    everything after it (difflib's junk heuristic would give up on the repeated lines)."""
    old = ["", "a"] * 150
    new = list(old)
    new[151] = "b"
    assert line_diff("\n".join(old), "\n".join(new)) == [
        (" ", "... 150 unchanged lines"),
        (" ", ""),
        ("-", "a"),
        ("+", "b"),
        (" ", ""),
        (" ", "... 147 unchanged lines"),
    ]


def test_a_mapping_against_something_else_is_two_values() -> None:
    mapping = {f"field_{i}": "v" * 20 for i in range(9)}
    view = _field("custom_fields", mapping, "text", Action.update)
    assert view == FieldView(format_value(mapping), '"text"')
    view = _field("custom_fields", "text", mapping, Action.update)
    assert view == FieldView('"text"', format_value(mapping))


def test_a_text_ending_in_other_characters_after_a_line_break_is_multiline() -> None:
    assert is_multiline("line\nXX") is True
    assert is_multiline("XX\n") is False
