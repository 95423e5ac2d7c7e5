"""How `reconciler schema` tidies pydantic's JSON Schema (manifest/schema.py), for the
shapes today's models do not produce but a new field easily could: the committed schema
(test_schema.py) only shows the ones they do. Each is a schema an editor and
check-jsonschema must read the same way as pydantic meant it."""

from __future__ import annotations

from typing import Any

import pytest

from reconciler.manifest.schema import _Tidy
from reconciler.manifest.values import VARIABLE_SCHEMA

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
def test_tidied(
    given: Any, definitions: dict[str, Any], written: Any, after: dict[str, Any]
) -> None:
    assert _Tidy(definitions).node(given) == written
    assert definitions == after
