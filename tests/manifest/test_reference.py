"""`docs/manifest-reference.md` is generated from the JSON Schema and committed: it is
current, and it covers every field of every definition."""

from __future__ import annotations

from pathlib import Path

import pytest

from reconciler.manifest.reference import (
    definition_uses,
    reference_markdown,
    type_text,
)
from reconciler.manifest.schema import json_schema
from reconciler.manifest.values import HOSTNAME_PATTERN, VARIABLE_PATTERN

COMMITTED = Path(__file__).parents[2] / "docs" / "manifest-reference.md"


def test_the_committed_reference_is_current() -> None:
    # After changing the models:
    # reconciler schema --markdown > docs/manifest-reference.md
    assert COMMITTED.read_text(encoding="utf-8") == reference_markdown()


def test_every_field_of_every_definition_has_a_row() -> None:
    schema = json_schema()
    text = reference_markdown(schema)
    sections = text.split("\n## ")
    for name, definition in schema["$defs"].items():
        [section] = [s for s in sections if s.startswith(f"{name}\n")]
        assert " ".join(definition["description"].split()) in section
        for field in definition.get("properties", {}):
            assert f"\n| `{field}` |" in section, (name, field)
    for field in schema["properties"]:
        assert f"\n| `{field}` |" in sections[1], field  # the top-level keys


def test_required_fields_defaults_and_examples_come_from_the_schema() -> None:
    text = reference_markdown()
    assert "| `username` | string (non-empty) | yes |  | Key, case-insensitive. Example: " in text
    assert '| `employee_key` | string (non-empty) | no | `"email"` |' in text
    assert (
        "| `max_change_percent` | number ≥ 0, ≤ 100 or [Variable](#variable) | no | `30` |" in text
    )
    assert "| `id` | integer ≥ 1, ≤ 2147483647 or [Variable](#variable) | yes |" in text
    assert "| `email_domains` | list of (domain name or [Variable](#variable)) or null |" in text
    assert "One of: `companies`, `departments`," in text
    assert "Any other field is allowed and passed through as written." in text  # employees


def test_each_definition_says_where_it_is_used() -> None:
    uses = definition_uses(json_schema())
    assert uses["Company"] == ["companies[]"]
    assert uses["Kind"] == ["settings.prune[]", "settings.ignore_fields (keys)"]
    assert uses["OptionId"] == [
        "companies[].custom_fields.<name>",
        "users[].custom_fields.<name>",
        "assets[].custom_fields.<name>",
    ]
    assert uses["Employee"] == ["workspace.employees[]"]
    # the order a reader meets them
    assert list(uses)[:4] == ["Settings", "Kind", "Variable", "Safety"]


def test_types_in_words() -> None:
    assert type_text({"type": "string"}) == "string"
    assert type_text({"type": "string", "format": "date"}) == "date (YYYY-MM-DD)"
    assert type_text({"type": "integer", "minimum": 1, "maximum": 5}) == "integer ≥ 1, ≤ 5"
    assert type_text({"$ref": "#/$defs/User"}) == "[User](#user)"
    nullable_list = {"anyOf": [{"type": "array", "items": {"$ref": "#/$defs/A"}}, {"type": "null"}]}
    assert type_text(nullable_list) == "list of [A](#a) or null"
    mapping = {
        "type": "object",
        "additionalProperties": {"anyOf": [{"type": "boolean"}, {"type": "null"}]},
    }
    assert type_text(mapping) == "mapping of name to (boolean or null)"
    assert type_text({"enum": ["a", 1]}) == 'one of `"a"`, `1`'
    assert type_text({}) == "any value"


def test_a_schema_of_its_own() -> None:
    schema = {
        "title": "tiny",
        "properties": {"things": {"type": "array", "items": {"$ref": "#/$defs/Thing"}}},
        "$defs": {
            "Thing": {
                "description": "A thing | with a pipe.",
                "properties": {"size": {"type": "integer", "default": 3}},
                "required": ["size"],
            },
            "Unused": {"description": "Nothing refers to it.", "enum": ["x"]},
        },
    }
    text = reference_markdown(schema)
    assert text.startswith("# Tiny reference\n")
    assert "| `things` | list of [Thing](#thing) | no |  |  |" in text
    assert "\nA thing | with a pipe.\n" in text  # outside a table, no escaping
    assert "| `size` | integer | yes | `3` |  |" in text
    assert text.index("## Thing") < text.index("## Unused")
    assert "Used at: `things[]`." in text and text.endswith("One of: `x`.\n")


# The field reference (`reconciler schema --markdown`, manifest/reference.py) for the shapes of
# JSON Schema the manifest models do not use today: a change to the models that brings one in must
# still be described in words a reader understands, not as `any value` or a half-written row. Each
# expected text is what the reference prints.

TYPES = [
    ("a constant", {"const": "fixed"}, '`"fixed"`'),
    ("a constant number", {"const": 3}, "`3`"),
    ("a boolean", {"type": "boolean"}, "boolean"),
    ("null", {"type": "null"}, "null"),
    ("a list of anything", {"type": "array"}, "list"),
    ("a list of strings", {"type": "array", "items": {"type": "string"}}, "list of string"),
    ("a mapping of anything", {"type": "object"}, "mapping"),
    (
        "a mapping whose values are free",
        {"type": "object", "additionalProperties": True},
        "mapping",
    ),
    (
        "a mapping keyed by a definition",
        {
            "type": "object",
            "additionalProperties": {"type": "integer"},
            "propertyNames": {"$ref": "#/$defs/Kind"},
        },
        "mapping of [Kind](#kind) to integer",
    ),
    (
        "a mapping whose keys have a pattern",
        {
            "type": "object",
            "additionalProperties": {"type": "integer"},
            "propertyNames": {"pattern": "^a"},
        },
        "mapping of name to integer",
    ),
    ("an e-mail address", {"type": "string", "format": "email"}, "e-mail address"),
    ("a date", {"type": "string", "format": "date"}, "date (YYYY-MM-DD)"),
    ("a host name", {"type": "string", "pattern": HOSTNAME_PATTERN}, "domain name"),
    ("a variable", {"type": "string", "pattern": VARIABLE_PATTERN}, "`${NAME}`"),
    ("another pattern", {"type": "string", "pattern": "^x"}, "string"),
    ("a non-empty string", {"type": "string", "minLength": 1}, "string (non-empty)"),
    ("a longer string", {"type": "string", "minLength": 3}, "string (at least 3 characters)"),
    ("an empty minimum", {"type": "string", "minLength": 0}, "string (at least 0 characters)"),
    ("a number", {"type": "number"}, "number"),
    ("an integer", {"type": "integer"}, "integer"),
    (
        "exclusive bounds",
        {"type": "number", "exclusiveMinimum": 0, "exclusiveMaximum": 1.5},
        "number > 0, < 1.5",
    ),
    (
        "every bound",
        {
            "type": "integer",
            "exclusiveMinimum": 0,
            "minimum": 1,
            "exclusiveMaximum": 9,
            "maximum": 8,
        },
        "integer > 0, ≥ 1, < 9, ≤ 8",
    ),
    ("one bound", {"type": "integer", "maximum": 8}, "integer ≤ 8"),
    (
        "two types",
        {"type": ["array", "null"], "items": {"type": "integer"}},
        "list of integer or null",
    ),
    ("a type of its own", {"type": "thing"}, "thing"),
    ("an enum of numbers", {"enum": [1, 2]}, "one of `1`, `2`"),
    ("an enum of text", {"enum": ["ä"]}, 'one of `"ä"`'),
    ("a union once", {"anyOf": [{"type": "string"}, {"type": "string"}]}, "string"),
    (
        "a union of three",
        {"anyOf": [{"type": "string"}, {"type": "integer"}, {"type": "null"}]},
        "string, integer or null",
    ),
    (
        "a union of two and a repeat",
        {"anyOf": [{"type": "string"}, {"type": "null"}, {"type": "string"}]},
        "string or null",
    ),
    (
        "a list of a union",
        {"type": "array", "items": {"anyOf": [{"type": "string"}, {"type": "integer"}]}},
        "list of (string or integer)",
    ),
    (
        "a list of a union of one",
        {"type": "array", "items": {"anyOf": [{"type": "string"}]}},
        "list of string",
    ),
    (
        "a list of a definition",
        {"type": "array", "items": {"$ref": "#/$defs/Company"}},
        "list of [Company](#company)",
    ),
    (
        "a mapping of a union",
        {
            "type": "object",
            "additionalProperties": {"anyOf": [{"type": "integer"}, {"$ref": "#/$defs/V"}]},
        },
        "mapping of name to (integer or [V](#v))",
    ),
]


@pytest.mark.parametrize(
    ("prop", "words"), [(prop, words) for _, prop, words in TYPES], ids=[t[0] for t in TYPES]
)
def test_the_reference_names_each_type_in_words(prop: dict[str, object], words: str) -> None:
    assert type_text(prop) == words


SCHEMA = {
    "title": "small manifest",
    "description": "The top of it,\n   over two lines.",
    "properties": {
        "things": {"type": "array", "items": {"$ref": "#/$defs/Thing"}},
        "extras": {"$ref": "#/$defs/Free"},
        "tree": {"$ref": "#/$defs/Tree"},
        "labels": {"type": "object", "additionalProperties": {"$ref": "#/$defs/Label"}},
        "keyed": {"type": "object", "propertyNames": {"$ref": "#/$defs/Key"}},
        "choice": {"anyOf": [{"$ref": "#/$defs/Label"}, {"type": "null"}]},
    },
    "required": ["things"],
    "$defs": {
        "Thing": {
            "description": "A thing.",
            "properties": {
                "size": {"type": "integer", "default": 3, "description": "How big | how wide."},
                "colour": {"type": "string", "default": None, "examples": ["red", "blue"]},
                "shape": {"type": "string", "description": "Its shape.", "examples": ["round"]},
                "note": {"type": "string", "description": "", "examples": []},
                "flag": {"type": "boolean", "default": False},
                "tags": {"type": "array", "default": ["a|b"]},
                "title": {"type": "string"},
            },
            "required": ["size"],
            "else": {"required": ["title"]},
            "additionalProperties": True,
        },
        "Free": {"description": "Anything goes.", "additionalProperties": True},
        "Open": {"additionalProperties": True},
        "Closed": {"description": "Nothing at all.", "additionalProperties": False},
        "Tree": {
            "description": "A tree of trees.",
            "properties": {"children": {"type": "array", "items": {"$ref": "#/$defs/Tree"}}},
        },
        "Label": {"description": "A label.", "enum": ["x", "y"]},
        "Key": {"enum": ["k"]},
        "Elsewhere": {"$ref": "#/$defs/Label"},
    },
}

EXPECTED = """\
# Small manifest reference

INTRO

## Top-level keys

The top of it, over two lines.

| field | type | required | default | description |
|---|---|---|---|---|
| `things` | list of [Thing](#thing) | yes |  |  |
| `extras` | [Free](#free) | no |  |  |
| `tree` | [Tree](#tree) | no |  |  |
| `labels` | mapping of name to [Label](#label) | no |  |  |
| `keyed` | mapping | no |  |  |
| `choice` | [Label](#label) or null | no |  |  |

## Thing

Used at: `things[]`.

A thing.

| field | type | required | default | description |
|---|---|---|---|---|
| `size` | integer | yes | `3` | How big \\| how wide. |
| `colour` | string | no |  | Example: `"red"`, `"blue"`. |
| `shape` | string | no |  | Its shape. Example: `"round"`. |
| `note` | string | no |  |  |
| `flag` | boolean | no | `false` |  |
| `tags` | list | no | `["a\\|b"]` |  |
| `title` | string | yes, but not in an overlay |  |  |

Any other field is allowed and passed through as written.

## Free

Used at: `extras`.

Anything goes.

Any field is allowed and passed through as written.

## Tree

Used at: `tree`, `tree.children[]`.

A tree of trees.

| field | type | required | default | description |
|---|---|---|---|---|
| `children` | list of [Tree](#tree) | no |  |  |

## Label

Used at: `labels.<name>`, `choice`.

A label.

One of: `x`, `y`.

## Key

Used at: `keyed (keys)`.

One of: `k`.

## Closed

Nothing at all.

## Elsewhere


## Open

Any field is allowed and passed through as written.
"""


def test_a_reference_with_every_kind_of_section() -> None:
    text = reference_markdown(SCHEMA)
    intro_start = text.index("Every field a manifest file may hold")
    intro_end = text.index("\n\n## Top-level keys")
    assert text[:intro_start] + "INTRO" + text[intro_end:] == EXPECTED


def test_the_places_of_each_definition() -> None:
    assert definition_uses(SCHEMA) == {
        "Thing": ["things[]"],
        "Free": ["extras"],
        "Tree": ["tree", "tree.children[]"],
        "Label": ["labels.<name>", "choice"],
        "Key": ["keyed (keys)"],
        "Closed": [],
        "Elsewhere": [],
        "Open": [],
    }


def test_a_reference_to_nothing_defined_is_no_place() -> None:
    schema = {"properties": {"a": {"$ref": "#/$defs/Missing"}}, "$defs": {"B": {"enum": [1]}}}
    assert definition_uses(schema) == {"B": []}


def test_a_schema_without_title_or_definitions() -> None:
    text = reference_markdown({"properties": {"a": {"type": "string"}}})
    assert text.startswith("# Manifest reference\n\nEvery field a manifest file may hold")
    assert text.endswith("\n| `a` | string | no |  |  |\n")


def test_the_intro_names_the_schema_and_the_rules_of_a_manifest() -> None:
    text = reference_markdown({"properties": {}})
    assert "[`schemas/manifest.schema.json`](../schemas/manifest.schema.json)" in text
    assert "Unknown fields are errors everywhere except in workspace employees." in text


def test_a_field_name_over_two_lines_is_still_one_row() -> None:
    text = reference_markdown({"properties": {"a\nb": {"type": "string"}}})
    assert text.endswith("\n| `a b` | string | no |  |  |\n")


def test_the_last_section_ends_as_written() -> None:
    text = reference_markdown({"properties": {}, "$defs": {"Mark": {"description": "An X"}}})
    assert text.endswith("\n## Mark\n\nAn X\n")


TABLE_HEAD = "| field | type | required | default | description |\n|---|---|---|---|---|\n"


def after_the_intro(text: str) -> str:
    return text[text.index("\n\n## Top-level keys") :]


def test_a_schema_of_definitions_only_has_an_empty_table_of_top_level_keys() -> None:
    schema = {"$defs": {"Mark": {"description": "A mark.", "enum": ["x"]}}}
    assert definition_uses(schema) == {"Mark": []}
    assert after_the_intro(reference_markdown(schema)) == (
        f"\n\n## Top-level keys\n\n{TABLE_HEAD}\n## Mark\n\nA mark.\n\nOne of: `x`.\n"
    )


def test_a_last_definition_with_nothing_to_say_ends_the_file_at_its_heading_as_written() -> None:
    text = reference_markdown({"properties": {}, "$defs": {"Later ": {}}})
    assert after_the_intro(text) == f"\n\n## Top-level keys\n\n{TABLE_HEAD}\n## Later \n"
