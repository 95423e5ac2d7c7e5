"""The exact text `reconciler export` writes (export/yamlout.py): which strings are quoted
and how, `${` kept from the loader, lists on one line up to eighty characters, a blank
line between entries of more than three fields, the header and the commented entries.
(tests/export/test_yaml.py checks that any value reads back; this, what a reviewer of the
exported files reads.)"""

from __future__ import annotations

from typing import Any

import pytest

from reconciler.export.yamlout import commented_entries, dump, entries_node


@pytest.mark.parametrize(
    ("value", "written"),
    [
        ("plain", "v: plain\n"),
        ("Xavier Max", "v: Xavier Max\n"),
        ("x#y", "v: x#y\n"),
        ("", "v: ''\n"),
        # read as something else by YAML 1.2 or 1.1
        ("0012", "v: '0012'\n"),
        ("2027-01-31", "v: '2027-01-31'\n"),
        ("on", "v: 'on'\n"),
        ("yes", "v: 'yes'\n"),
        # an indicator first, or a flow indicator anywhere
        ("?x", "v: '?x'\n"),
        ("-x", "v: '-x'\n"),
        ("#x", "v: '#x'\n"),
        ("@a", "v: '@a'\n"),
        ("a,b", "v: 'a,b'\n"),
        ("a[b", "v: 'a[b'\n"),
        ("a{b}", "v: 'a{b}'\n"),
        ("a: b", "v: 'a: b'\n"),
        # a variable's syntax is kept from substitution
        ("${X}", "v: '$${X}'\n"),
        ("cost $5", "v: cost $5\n"),
        # line breaks and control characters
        ("multi\nline\n", "v: |\n  multi\n  line\n"),
        ("a\rb", 'v: "a\\rb"\n'),
        ("a\x85b", 'v: "a\\Nb"\n'),
        ("a\u2028b", 'v: "a\\Lb"\n'),
        ("bell\x07", 'v: "bell\\a"\n'),
        ("tab\there", 'v: "tab\\there"\n'),
    ],
)
def test_how_a_string_is_written(value: str, written: str) -> None:
    assert dump({"v": value}, []) == written


def test_a_key_is_written_as_it_is() -> None:
    assert dump({"${K}": 1}, []) == "'${K}': 1\n"


@pytest.mark.parametrize(
    ("document", "written"),
    [
        ({"x": []}, "x: []\n"),
        ({"v": None}, "v: null\n"),
        ({"k": [None, True, 1.5]}, "k: [null, true, 1.5]\n"),
        # up to eighty characters (joined by ", ") on one line; one more, one an item
        ({"x": ["a" * 40, "b" * 38]}, "x: [" + "a" * 40 + ", " + "b" * 38 + "]\n"),
        ({"x": ["a" * 41, "b" * 38]}, "x:\n  - " + "a" * 41 + "\n  - " + "b" * 38 + "\n"),
        ({"x": [1, "a\nb"]}, "x:\n  - 1\n  - |-\n    a\n    b\n"),
        ({"x": [{"a": 1}]}, "x:\n  - a: 1\n"),
        # a dropdown value by id on one line, any other mapping as a block
        (
            {"cf": {"Tier": {"option_id": 7}, "Other": {"a": 1, "option_id": 2}}},
            "cf:\n  Tier: {option_id: 7}\n  Other:\n    a: 1\n    option_id: 2\n",
        ),
    ],
)
def test_how_a_document_is_written(document: dict[str, Any], written: str) -> None:
    assert dump(document, []) == written


def test_entries_of_more_than_three_fields_are_set_apart_by_a_blank_line() -> None:
    three = [{"username": "a", "email": "a@b.com", "first_name": "A"}, {"username": "b"}]
    assert dump({"users": entries_node(three)}, []) == (
        "users:\n  - username: a\n    email: a@b.com\n    first_name: A\n  - username: b\n"
    )
    four = [{**three[0], "last_name": "B"}, {"username": "b"}, {"username": "c"}]
    assert dump({"users": entries_node(four)}, []) == (
        "users:\n  - username: a\n    email: a@b.com\n    first_name: A\n    last_name: B\n"
        "\n  - username: b\n\n  - username: c\n"
    )
    assert dump({"users": entries_node([four[0]])}, []) == (
        "users:\n  - username: a\n    email: a@b.com\n    first_name: A\n    last_name: B\n"
    )


def test_the_header_and_the_trailer() -> None:
    assert dump({"k": 1}, ["Exported from x", "", "by reconciler"], trailer="# end\n") == (
        "# Exported from x\n#\n# by reconciler\nk: 1\n# end\n"
    )


def test_entries_written_as_comments_become_items_again_without_the_hash() -> None:
    assert commented_entries([{"id": 5, "name": "R"}, {"id": 6}]) == (
        "#   - id: 5\n#     name: R\n#   - id: 6\n"
    )
    assert commented_entries([]) == ""
