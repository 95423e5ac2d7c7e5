"""The committed JSON Schema is the one the models generate, and it says what editors need."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import reconciler.manifest
from reconciler.manifest import Kind, json_schema, schema_text, write_schema
from reconciler.manifest.schema import SCHEMA_DRAFT, SCHEMA_ID

COMMITTED = Path(__file__).parents[2] / "schemas" / "manifest.schema.json"


def test_the_committed_schema_is_current() -> None:
    # After changing the models: `reconciler schema > schemas/manifest.schema.json`.
    assert COMMITTED.read_text(encoding="utf-8") == schema_text()


def test_write_schema_writes_sorted_indented_json_with_a_trailing_newline(tmp_path: Path) -> None:
    path = write_schema(tmp_path / "nested" / "manifest.schema.json")
    text = path.read_text(encoding="utf-8")
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


def test_the_package_exports_what_it_documents() -> None:
    exported = set(reconciler.manifest.__all__)
    public = {name for name in vars(reconciler.manifest) if not name.startswith("_")}
    # Submodules are attributes of the package once imported (by this test run or another).
    modules = {path.stem for path in Path(reconciler.manifest.__file__).parent.glob("*.py")}
    modules |= {"annotations"}
    assert exported == public - modules


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
