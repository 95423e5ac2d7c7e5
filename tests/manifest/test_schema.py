"""The committed JSON Schema is the one the models generate, and it says what editors need."""

from __future__ import annotations

import json
from pathlib import Path

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
    for name, prop in properties.items():
        assert prop.get("description"), name
    definitions = schema["$defs"]
    assert definitions["Kind"]["enum"] == [kind.value for kind in Kind]
    for name, definition in definitions.items():
        assert definition.get("description"), name
    assert definitions["Employee"]["additionalProperties"] is True
    assert definitions["Company"]["additionalProperties"] is False
    assert definitions["Company"]["required"] == ["name"]
    assert definitions["OptionId"]["properties"]["option_id"]["exclusiveMinimum"] == 0


def test_the_package_exports_what_it_documents() -> None:
    exported = set(reconciler.manifest.__all__)
    public = {name for name in vars(reconciler.manifest) if not name.startswith("_")}
    # Submodules are attributes of the package once imported (by this test run or another).
    modules = {path.stem for path in Path(reconciler.manifest.__file__).parent.glob("*.py")}
    modules |= {"annotations"}
    assert exported == public - modules
