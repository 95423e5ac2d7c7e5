"""What both YAML paths (libyaml's composer and ruamel.yaml's pure parser, which loads a
text libyaml declines) give for merge keys, a date that is no date, and nesting at the
limit, checked directly and fast (the comparison tests of the two paths are generated and
slow to fail)."""

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
