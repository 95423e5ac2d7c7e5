"""The committed JSON Schema is the one the models generate, and it says what editors need."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from reconciler.manifest.models import Kind
from reconciler.manifest.schema import (
    SCHEMA_DRAFT,
    SCHEMA_ID,
    _Tidy,
    json_schema,
    schema_text,
)
from reconciler.manifest.values import VARIABLE_SCHEMA

COMMITTED = Path(__file__).parents[2] / "schemas" / "manifest.schema.json"


def test_the_committed_schema_is_current() -> None:
    # After changing the models: `reconciler schema > schemas/manifest.schema.json`.
    assert COMMITTED.read_text(encoding="utf-8") == schema_text()


def test_the_schema_text_is_sorted_indented_json_with_a_trailing_newline() -> None:
    text = schema_text()
    assert text.endswith("}\n") and not text.endswith("\n\n")
    assert json.loads(text) == json_schema()
    assert text == json.dumps(json.loads(text), indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def test_the_schema_names_itself_and_describes_every_kind() -> None:
    schema = json_schema()
    assert (schema["$schema"], schema["$id"]) == (SCHEMA_DRAFT, SCHEMA_ID)
    assert schema["title"] == "reconciler manifest" and schema["description"]
    assert schema["additionalProperties"] is False
    properties = schema["properties"]
    assert set(properties) == {
        "settings", "companies", "departments", "categories", "tech_permissions", "users",
        "assets", "automation_rules", "workspace",
    }  # fmt: skip
    definitions = schema["$defs"]
    for name, prop in properties.items():
        # A section's description is its definition's: an editor shows each once.
        described = definitions[prop["$ref"].split("/")[-1]] if "$ref" in prop else prop
        assert described.get("description"), name
    assert definitions["Kind"]["enum"] == [kind.value for kind in Kind]
    for name, definition in definitions.items():
        assert definition.get("description"), name
    assert definitions["Employee"]["additionalProperties"] is True
    assert definitions["Company"]["additionalProperties"] is False
    assert definitions["Company"]["required"] == ["name"]
    option_id = definitions["OptionId"]["properties"]["option_id"]["anyOf"]
    assert option_id[0] == {"type": "integer", "minimum": 1, "maximum": 2**31 - 1}
    assert option_id[1] == {"$ref": "#/$defs/Variable"}


def test_optional_sections_are_plain_types_not_unions_with_null() -> None:
    """A validator reports a mistake inside an `anyOf` member at the member's level: with
    `anyOf: [array, null]` a misspelt field in one user was reported at `$.users`."""
    schema = json_schema()
    for name, prop in schema["properties"].items():
        assert "anyOf" not in prop, name
    assert schema["properties"]["users"]["type"] == ["array", "null"]
    assert schema["$defs"]["Settings"]["type"] == ["object", "null"]
    assert "anyOf" not in json.dumps(schema["$defs"]["Settings"]["properties"]["prune"]["type"])


def test_no_title_repeats_a_field_name_in_hover() -> None:
    text = schema_text()
    assert text.count('"title"') == 1  # the schema's own


def _nodes(node: Any) -> Iterator[dict[str, Any]]:
    if isinstance(node, dict):
        yield node
        for value in node.values():
            yield from _nodes(value)
    elif isinstance(node, list):
        for value in node:
            yield from _nodes(value)


def test_no_description_is_shown_twice_in_hover() -> None:
    """An editor's hover on a field whose schema is a `$ref` shows the field's description
    and the definition's: only one of them may have one (an optional section's is its
    definition's)."""
    schema = json_schema()
    definitions = schema["$defs"]
    both = [
        node["$ref"]
        for node in _nodes(schema)
        if "$ref" in node
        and "description" in node
        and "description" in definitions[node["$ref"].rsplit("/", 1)[-1]]
    ]
    assert both == []
    assert "description" not in schema["properties"]["settings"]
    assert definitions["Settings"]["description"]


# How `reconciler schema` tidies pydantic's JSON Schema (manifest/schema.py), for the shapes
# today's models do not produce but a new field easily could: the committed schema
# (test_schema.py) only shows the ones they do. Each is a schema an editor and check-jsonschema
# must read the same way as pydantic meant it.

NULL = {"type": "null"}
VARIABLE = {"$ref": "#/$defs/Variable"}

# (id, pydantic's node, the definitions it refers to, the node as written, the definitions after)
ROWS: list[tuple[str, Any, dict[str, Any], Any, dict[str, Any]]] = [
    (
        "text or null: one type list, the description kept",
        {"anyOf": [{"type": "integer"}, NULL], "description": "d", "title": "T"},
        {},
        {"type": ["integer", "null"], "description": "d"},
        {},
    ),
    (
        "a union of types or null: null joins the text member, else the first typed one",
        {"anyOf": [{"anyOf": [{"type": "integer"}, {"type": "string"}]}, NULL]},
        {},
        {"anyOf": [{"type": "integer"}, {"type": ["string", "null"]}]},
        {},
    ),
    (
        "no text member: null joins the first typed one",
        {"anyOf": [{"$ref": "#/$defs/A"}, {"type": "integer"}, {"type": "boolean"}, NULL]},
        {"A": {"type": "object"}},
        {"anyOf": [{"$ref": "#/$defs/A"}, {"type": ["integer", "null"]}, {"type": "boolean"}]},
        {"A": {"type": "object"}},
    ),
    (
        "two definitions or null: no member has a type, null stays a member",
        {"anyOf": [{"$ref": "#/$defs/A"}, {"$ref": "#/$defs/B"}, NULL], "description": "d"},
        {"A": {"type": "object"}, "B": {"type": "object"}},
        {"description": "d", "anyOf": [{"$ref": "#/$defs/A"}, {"$ref": "#/$defs/B"}, NULL]},
        {"A": {"type": "object"}, "B": {"type": "object"}},
    ),
    (
        "a variable or null: the variable is no optional section",
        {"anyOf": [VARIABLE_SCHEMA, NULL]},
        {},
        {"anyOf": [VARIABLE, NULL]},
        {},
    ),
    (
        "an optional section: its definition accepts null and gives the description",
        {"anyOf": [{"$ref": "#/$defs/S"}, NULL], "description": "the field's", "default": None},
        {"S": {"type": "object", "description": "the section's"}},
        {"$ref": "#/$defs/S", "default": None},
        {"S": {"type": ["object", "null"], "description": "the section's"}},
    ),
    (
        "an optional section whose definition gives no type is an object",
        {"anyOf": [{"$ref": "#/$defs/S"}, NULL]},
        {"S": {"properties": {}}},
        {"$ref": "#/$defs/S"},
        {"S": {"properties": {}, "type": ["object", "null"]}},
    ),
    (
        "a union without null is left as it is",
        {"anyOf": [{"type": "integer"}, {"type": "string"}]},
        {},
        {"anyOf": [{"type": "integer"}, {"type": "string"}]},
        {},
    ),
    (
        "titles go, also inside properties; a property named title stays",
        {"title": "M", "properties": {"title": {"type": "string", "title": "Title"}}},
        {},
        {"properties": {"title": {"type": "string"}}},
        {},
    ),
]


@pytest.mark.parametrize(
    ("given", "definitions", "written", "after"),
    [row[1:] for row in ROWS],
    ids=[row[0] for row in ROWS],
)
def test_each_schema_shape_is_tidied_to_what_an_editor_reads(
    given: Any, definitions: dict[str, Any], written: Any, after: dict[str, Any]
) -> None:
    assert _Tidy(definitions).node(given) == written
    assert definitions == after


def test_every_type_is_a_name_or_a_list_of_names_even_for_a_definition_used_twice() -> None:
    # A scope's definition serves several kinds; making it accept null once per use
    # nested the lists, and validators refused the whole schema.
    found: list[object] = []

    def walk(node: object) -> None:  # a schema: its keywords, and the schemas inside
        if isinstance(node, list):
            for value in node:
                walk(value)
        if not isinstance(node, dict):
            return
        kind = node.get("type")
        if kind is not None and not (
            isinstance(kind, str)
            or (isinstance(kind, list) and all(isinstance(k, str) for k in kind))
        ):
            found.append(kind)
        for key, value in node.items():
            if key in ("properties", "$defs", "patternProperties"):  # names -> schemas
                for schema in value.values():
                    walk(schema)
            elif key != "type":
                walk(value)

    walk(json.loads(schema_text()))
    assert found == []
