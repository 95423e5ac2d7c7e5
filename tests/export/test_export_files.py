"""The files `reconciler export` writes from what it read (export/result.py): one per
kind and `settings.yaml` for a clone, or one document; each headed with the schema and
where and when it was exported; rules whose state is unknown as comments that become
items once uncommented. (Expected texts written out whole: what the user gets.)"""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from ruamel.yaml import YAML

from reconciler.export.result import CloneSettings, ExportResult, clone_settings
from reconciler.kinds.categories.reader import LiveCategories, LiveCategory
from reconciler.kinds.custom_fields.reader import (
    DROPDOWN,
    TEXT,
    USAGE,
    CustomFieldCatalogue,
    FieldDefinition,
)

AT = datetime(2026, 11, 25, 20, 0, 0, tzinfo=UTC)
SCHEMA = "# yaml-language-server: $schema=manifest.schema.json\n"
HD = "# Exported by `reconciler export` from https://hd.example.com at 2026-11-25T20:00:00Z.\n"
UNKNOWN = (
    "# The service does not say whether these rules are enabled (its rule document carries\n"
    "# no state), so they are not managed yet: to manage one, uncomment it (remove `# `) and\n"
    "# choose `enabled`; it is then switched on every apply, as its state cannot be read.\n"
)
CLONE = (
    "# What the API cannot create but the manifests refer to, as this helpdesk has it: the\n"
    "# ids are this helpdesk's. To configure another helpdesk from these manifests, create\n"
    "# the custom fields, their options and the category sections in its admin panel first,\n"
    "# then put its own ids here.\n"
)
SETTINGS = (
    "settings:\n  custom_field_options:\n    users:\n      Tier:\n        Gold: 7\n"
    "  section_ids:\n    IT: 1\n"
)

RESULT = ExportResult(
    entries={
        "companies": [{"name": "Acme"}],
        "automation_rules": [{"id": 5, "enabled": True}],
        "workspace.employees": [{"email": "a@b.com"}],
    },
    sources={"helpdesk": "https://hd.example.com", "workspace": "https://ws.example.com"},
    exported_at=AT,
    unknown_rules=[{"id": 7, "name": "Night"}],
    clone=CloneSettings(
        {"users": {"Tier": {"Gold": 7}}}, {"IT": 1}, ("Dropdown X: options not shown",)
    ),
)
RULES = (
    "automation_rules:\n  - id: 5\n    enabled: true\n"
    + UNKNOWN
    + "#   - id: 7\n#     name: Night\n#     enabled: false  # or true: not known\n"
)


def test_one_file_per_kind_and_the_settings_of_a_clone() -> None:
    assert RESULT.count == 3
    assert RESULT.file_names() == [
        "settings.yaml",
        "companies.yaml",
        "automation_rules.yaml",
        "workspace.yaml",
    ]
    assert RESULT.files() == {
        "settings.yaml": SCHEMA + HD + CLONE + "# Dropdown X: options not shown\n" + SETTINGS,
        "companies.yaml": SCHEMA + HD + "companies:\n  - name: Acme\n",
        "automation_rules.yaml": SCHEMA + HD + RULES,
        "workspace.yaml": SCHEMA
        + "# Exported by `reconciler export` from https://ws.example.com at "
        "2026-11-25T20:00:00Z.\n"
        "workspace:\n  employees:\n    - email: a@b.com\n",
    }
    assert RESULT.files(schema="../s.json")["companies.yaml"].startswith(
        "# yaml-language-server: $schema=../s.json\n"
    )


def test_everything_in_one_document() -> None:
    assert RESULT.document() == (
        SCHEMA + "# Exported by `reconciler export` from https://hd.example.com and "
        "https://ws.example.com at 2026-11-25T20:00:00Z.\n"
        + SETTINGS
        + "companies:\n  - name: Acme\n"
        + RULES
        + "workspace:\n  employees:\n    - email: a@b.com\n"
    )


def test_uncommented_unknown_rules_are_items_of_the_rules() -> None:
    only_unknown = ExportResult(
        entries={"automation_rules": []},
        sources={"helpdesk": "H"},
        exported_at=datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC),
        unknown_rules=[{"id": 7}],
    )
    text = only_unknown.files()["automation_rules.yaml"]
    assert text == (
        SCHEMA
        + "# Exported by `reconciler export` from H at 2026-01-02T03:04:05Z.\n"
        + "automation_rules:\n"
        + UNKNOWN
        + "#   - id: 7\n#     enabled: false  # or true: not known\n"
    )
    assert only_unknown.document() == text
    uncommented = text.replace("#   - id: 7\n#     enabled: false", "  - id: 7\n    enabled: false")
    loaded = YAML(typ="safe", pure=True).load(uncommented)
    assert loaded == {"automation_rules": [{"id": 7, "enabled": False}]}


@pytest.mark.parametrize(
    ("entries", "files", "document"),
    [
        (
            {"users": []},
            {"users.yaml": "users: []\n"},
            "users: []\n",
        ),
        (
            {"workspace.employees": [{"email": "a@b.com"}]},
            {"workspace.yaml": "workspace:\n  employees:\n    - email: a@b.com\n"},
            "workspace:\n  employees:\n    - email: a@b.com\n",
        ),
    ],
)
def test_a_kind_without_objects_and_an_export_without_a_source(
    entries: dict[str, list[dict[str, str]]], files: dict[str, str], document: str
) -> None:
    result = ExportResult(entries=entries, sources={}, exported_at=AT)
    header = (
        SCHEMA + "# Exported by `reconciler export` from the live state at 2026-11-25T20:00:00Z.\n"
    )
    assert result.count == sum(len(e) for e in entries.values())
    assert result.file_names() == list(files)
    assert result.files() == {name: header + text for name, text in files.items()}
    assert result.document() == header + document


# What `settings.yaml` holds for a clone of the exported helpdesk (export/result.py): every
# dropdown option seen (listed by the API or learned from values), in field and id order; the
# sections the categories show; and, as comments, what the export could not see.

CATALOGUE = CustomFieldCatalogue(
    {
        USAGE["users"]: {
            "tier": FieldDefinition(
                1, "Tier", DROPDOWN, {"gold": 7, "silver": 8}, {8: "Silver", 7: "Gold"}
            ),
            "code": FieldDefinition(2, "Code", TEXT),
            "level": FieldDefinition(3, "level", DROPDOWN),
        },
        USAGE["assets"]: {
            "zone": FieldDefinition(4, "Zone", DROPDOWN),
            "bay": FieldDefinition(5, "bay", DROPDOWN),
        },
        USAGE["companies"]: {
            "region": FieldDefinition(6, "Region", DROPDOWN),
            # The users' field's name, with other options: another field.
            "tier": FieldDefinition(7, "Tier", DROPDOWN, {"platinum": 1}, {1: "Platinum"}),
        },
    }
)
BLIND_LEAD = (
    "The API shows none of the options of these dropdowns, so their values are written",
    "as {option_id: N}; for a clone, add each here under custom_field_options as",
    "`KIND: {FIELD: {OPTION NAME: ID}}` with the clone's ids, and write the values",
    "by name:",
)
SECTIONS_NOTE = (
    "A section that holds no category is not visible through the API: add any such",
    "section a clone needs to section_ids by hand.",
)


def test_options_seen_and_learned_and_the_sections_of_the_categories() -> None:
    learned = {
        USAGE["users"]: {"LEVEL": {"High": 5, "Low": 2, "Mid": 3}},
        USAGE["companies"]: {"Region": {"North": 3}},
        USAGE["assets"]: {"Region": {"South": 4}},  # no assets field of that name
    }
    categories = LiveCategories.from_items(
        [
            LiveCategory(1, "A", 20, "Zed"),
            LiveCategory(2, "B", 10, "alpha"),
            LiveCategory(3, "C", None, None),
        ]
    )
    settings = clone_settings(CATALOGUE, learned, categories)
    assert settings == CloneSettings(
        {
            "companies": {"Region": {"North": 3}, "Tier": {"Platinum": 1}},
            "users": {"level": {"Low": 2, "Mid": 3, "High": 5}, "Tier": {"Gold": 7, "Silver": 8}},
        },
        {"alpha": 10, "Zed": 20},
        (*BLIND_LEAD, "  - bay (assets)", "  - Zone (assets)", *SECTIONS_NOTE),
    )
    assert list(settings.custom_field_options) == ["companies", "users"]  # the kinds' order
    assert list(settings.custom_field_options["users"]) == ["level", "Tier"]
    assert list(settings.custom_field_options["users"]["level"]) == ["Low", "Mid", "High"]
    assert list(settings.section_ids) == ["alpha", "Zed"]


def test_without_categories_no_section_is_guessed() -> None:
    settings = clone_settings(CATALOGUE, {}, None)
    assert settings == CloneSettings(
        {"companies": {"Tier": {"Platinum": 1}}, "users": {"Tier": {"Gold": 7, "Silver": 8}}},
        {},
        (
            *BLIND_LEAD,
            "  - bay (assets)",
            "  - level (users)",
            "  - Region (companies)",
            "  - Zone (assets)",
        ),
    )
    assert settings
    assert not CloneSettings()
    assert not clone_settings(CustomFieldCatalogue({}), {}, None)
