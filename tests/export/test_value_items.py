"""An object's custom field values as the listing gives them (export/entries.py): an item
without a usable field id is passed over, and the values listed after it are exported."""

from __future__ import annotations

from typing import Any

from tests.export.test_custom_field_values import exporter


def test_values_after_an_item_without_a_field_id_are_exported() -> None:
    values, notes, _ = exporter()
    items: list[dict[str, Any]] = [
        {"Value": "no id"},
        {"FieldID": "bad", "Value": "x"},
        {"FieldID": None, "Value": "y"},
        {"FieldID": 6, "Value": "A-1"},
        {"FieldID": 3, "Value": "false"},
    ]
    assert values.values(items, "users/a") == {"VIP": False, "Code": "A-1"}
    assert notes == []
