"""`settings.custom_field_options` is keyed by the kinds that have custom fields (the
table of kinds' `custom_field_usage`), then field name (manifest/models.py)."""

from __future__ import annotations

from reconciler.kinds.table import KINDS
from reconciler.manifest.loader import load_manifest_text
from reconciler.manifest.models import CustomFieldOptions


def test_the_kinds_are_those_with_custom_fields_in_the_table_order() -> None:
    assert list(CustomFieldOptions.model_fields) == [
        row.name for row in KINDS if row.custom_field_usage
    ]


def test_each_kind_has_its_own_table_of_a_field_name() -> None:
    desired = load_manifest_text(
        "settings:\n  custom_field_options:\n"
        "    companies: {Tier: {Gold: 7}}\n    users: {Tier: {Gold: 17}}\n"
    )
    options = desired.settings.custom_field_options
    assert options.of("companies") == {"Tier": {"Gold": 7}}
    assert options.of("users") == {"Tier": {"Gold": 17}}
    assert options.of("assets") == {}
    assert options.of("departments") == {}  # a kind without custom fields
    assert options
    assert not load_manifest_text("settings: {}\n").settings.custom_field_options
