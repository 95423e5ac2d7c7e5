"""`docs/manifest-reference.md` is generated from the JSON Schema and committed: it is
current, and it covers every field of every definition."""

from __future__ import annotations

from pathlib import Path

from reconciler.manifest import json_schema
from reconciler.manifest.reference import (
    definition_uses,
    reference_markdown,
    type_text,
    write_reference,
)

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


def test_write_reference(tmp_path: Path) -> None:
    path = write_reference(tmp_path / "docs" / "ref.md")
    assert path.read_text(encoding="utf-8") == reference_markdown()
