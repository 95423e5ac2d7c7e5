"""What both YAML paths (libyaml's composer and ruamel.yaml's pure parser, which loads a
text libyaml declines) give for merge keys, a date that is no date, and nesting at the
limit, checked directly and fast (the comparison tests of the two paths are generated and
slow to fail)."""

# ruff: noqa: E501  (a row of the table is one line, whatever its length)

from __future__ import annotations

from datetime import date
from typing import Any

import pytest

from reconciler.manifest.yamltree import MAX_DEPTH, parse_documents

PATHS = pytest.mark.parametrize("libyaml", [True, False], ids=["libyaml", "pure"])


def load(text: str, libyaml: bool) -> tuple[list[Any], list[tuple[int, int, str]]]:
    found: list[tuple[int, int, str]] = []
    documents = parse_documents(
        text, lambda line, column, message: found.append((line, column, message)),
        lambda value: (value, []), libyaml=libyaml,
    )  # fmt: skip
    return [document.plain() for document in documents], found


@PATHS
def test_merge_keys_merge_and_explicit_keys_win(libyaml: bool) -> None:
    text = "base: &b {x: 1, y: 2}\nm:\n  <<: *b\n  y: 3\nn:\n  <<: [{a: 1}, *b]\n"
    assert load(text, libyaml) == (
        [{"base": {"x": 1, "y": 2}, "m": {"y": 3, "x": 1}, "n": {"a": 1, "x": 1, "y": 2}}],
        [],
    )


@PATHS
def test_a_date_that_is_no_date_is_text_for_the_field_to_judge(libyaml: bool) -> None:
    assert load("d: 2025-02-30\ne: 2027-01-31\n", libyaml) == (
        [{"d": "2025-02-30", "e": date(2027, 1, 31)}],
        [],
    )


def nested(levels: int) -> str:
    """A mapping holding lists `levels` deep: `levels` + 1 levels in all."""
    return "a: " + "[" * levels + "]" * levels + "\n"


@PATHS
def test_nesting_up_to_the_limit_loads_and_one_more_level_is_refused(libyaml: bool) -> None:
    assert load(nested(MAX_DEPTH - 1), libyaml) == ([{"a": nested_lists(MAX_DEPTH - 1)}], [])
    column = len("a: ") + MAX_DEPTH  # the bracket that opens the level too many
    assert load(nested(MAX_DEPTH), libyaml) == (
        [],
        [(1, column, "invalid YAML: nested deeper than 64 levels")],
    )


def nested_lists(levels: int) -> list[Any]:
    value: list[Any] = []
    for _ in range(levels - 1):
        value = [value]
    return value


NO_CONSTRUCTOR = "cannot read this value: could not determine a constructor for the tag"
# (id, text, the documents as plain data, the problems): the same on both paths.
TEXTS: list[tuple[str, str, list[Any], list[tuple[int, int, str]]]] = [
    ("a tab indenting a key", "a:\n\tb: 1\n", [], [(2, 1, "invalid YAML: a tab in the indentation; YAML indents with spaces")]),
    ("a tab after spaces", "a:\n  b: 1\n \tc: 2\n", [], [(3, 2, "invalid YAML: a tab in the indentation; YAML indents with spaces")]),
    ("a tab after a key", "a:\tb: c\n", [], [(1, 3, "invalid YAML: a tab in the indentation; YAML indents with spaces")]),
    ("a line indented by a tab where another token was expected", "a: [\n\t]]\n", [], [(2, 3, "invalid YAML: a tab in the indentation; YAML indents with spaces")]),
    ("a tab after the indentation", "a: b: c\t\n", [], [(1, 5, "invalid YAML: mapping values are not allowed here")]),
    ("an unclosed list", "a: [1, 2\nb: 3\n", [], [(2, 2, "invalid YAML: expected ',' or ']', but got ':' (while parsing a flow sequence at line 1, column 4)")]),
    ("an unclosed quote", "a: 'abc\n", [], [(2, 1, "invalid YAML: found unexpected end of stream (while scanning a quoted scalar at line 1, column 4)")]),
    ("a NUL", "a: b\nc: d\x00e\n", [], [(2, 5, "a character YAML does not allow: #x0000")]),
    ("a bell", "a: b\x07\n", [], [(1, 5, "a character YAML does not allow: #x0007")]),
    ("a control character after an empty first line", "\na: b\x01\n", [], [(2, 5, "a character YAML does not allow: #x0001")]),
    ("a tag that builds an object", "a: !!python/name:os.system x\n", [{"a": None}], [(1, 4, f"{NO_CONSTRUCTOR} 'tag:yaml.org,2002:python/name:os.system'")]),
    ("a tag on a list", "a: !!set [1]\n", [{"a": [1]}], [(1, 4, "unsupported YAML tag '!!set'")]),
    ("no whole number", "a: !!int x\n", [{"a": None}], [(1, 4, "cannot read this value as !!int")]),
    ("no boolean", "a: !!bool maybe\n", [{"a": None}], [(1, 4, "cannot read this value as !!bool")]),
    ("a recursive alias", "a: &x [*x]\n", [{"a": [None]}], [(1, 8, "a recursive alias cannot be loaded")]),
    ("a list as a key", "? [1]\n: 2\n", [{}], [(1, 3, "a mapping key must be a plain value, not a collection")]),
    ("an alias as a key", "k: &k name\n*k : 3\n", [{"k": "name", "name": 3}], []),
    ("a merge of a number", "a:\n  <<: 1\n", [{"a": {}}], [(2, 7, "'<<' must name a mapping or a list of them")]),
    ("a key twice", "a: 1\nb: 2\na: 3\n", [{"a": 1, "b": 2}], [(3, 1, "duplicate key 'a' (first at line 1, column 1)")]),
    ("documents, empty ones and a broken one", "a: 1\n---\n---\nb: 2\n--- x: [\n", [{"a": 1}, {"b": 2}], [(5, 6, "invalid YAML: mapping values are not allowed here")]),
    ("a YAML version other than 1.x", "%YAML 2.0\n---\na: 1\n", [], [(1, 1, "invalid YAML: found incompatible YAML document (version 1.* is required)")]),
    ("the YAML directive twice", "%YAML 1.1\n%YAML 1.2\n---\na: 1\n", [], [(2, 1, "invalid YAML: found duplicate YAML directive")]),
    ("a tag handle declared twice", "%TAG ! !x\n%TAG ! !y\n---\na: 1\n", [], [(2, 1, "invalid YAML: duplicate tag handle '!'")]),
    ("a bad directive after two documents keeps them", "a: 1\n---\nb: 2\n...\n%YAML 9.0\n---\nc: 3\n", [{"a": 1}, {"b": 2}], [(5, 1, "invalid YAML: found incompatible YAML document (version 1.* is required)")]),
]  # fmt: skip


@pytest.mark.parametrize(
    ("text", "documents", "problems"), [t[1:] for t in TEXTS], ids=[t[0] for t in TEXTS]
)
@PATHS
def test_what_each_text_loads_as_and_the_problems_at_their_place(
    text: str, documents: list[Any], problems: list[tuple[int, int, str]], libyaml: bool
) -> None:
    assert load(text, libyaml) == (documents, problems)


@PATHS
def test_an_empty_value_is_where_its_key_is(libyaml: bool) -> None:
    [document] = parse_documents(
        "a:\nb: 1\nc: ''\n", lambda *_: None, lambda value: (value, []), libyaml=libyaml
    )
    a, b, c = (document.child(name) for name in "abc")
    assert a is not None and (a.value, a.line, a.column) == (None, 1, 1)
    assert b is not None and (b.value, b.line, b.column) == (1, 2, 4)
    assert c is not None and (c.value, c.line, c.column) == ("", 3, 4)
    assert document.child(0) is None and document.child("d") is None


@PATHS
def test_aliases_may_expand_to_the_limit_and_not_one_node_more(libyaml: bool) -> None:
    # `a` is 100 nodes (a list of 99), used 1000 times: 100,000 nodes through aliases.
    text = "s: &s 1\na: &a [" + ", ".join(["1"] * 99) + "]\nb: [" + ", ".join(["*a"] * 1000)
    text += "]\n"
    documents, problems = load(text, libyaml)
    assert problems == [] and len(documents[0]["b"]) == 1000
    assert load(text + "c: *s\n", libyaml) == (
        [],
        [
            (
                4,
                4,
                "aliases expand to more than 100,000 nodes (an alias bomb?); the document is not loaded",
            )
        ],
    )


def test_libyaml_false_or_libyaml_missing_parses_with_ruamel_alone(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """`libyaml=False` (and a machine without libyaml) never reaches the C composer."""
    import reconciler.manifest.yamltree as yamltree

    def refused(text: str, max_depth: int) -> Any:
        raise AssertionError("the libyaml path was taken")

    monkeypatch.setattr(yamltree, "compose_documents", refused)
    assert load("a: [1, {b: c}]\n", libyaml=False) == ([{"a": [1, {"b": "c"}]}], [])
    monkeypatch.setattr(yamltree, "libyaml_available", lambda: False)
    assert load("a: 1\n", libyaml=True) == ([{"a": 1}], [])
