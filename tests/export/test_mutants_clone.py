"""What `settings.yaml` holds for a clone of the exported helpdesk (export/clone.py): every
dropdown option seen (listed by the API or learned from values), in field and id order;
the sections the categories show; and, as comments, what the export could not see."""

from __future__ import annotations

from reconciler.export.clone import CloneSettings, clone_settings
from reconciler.resources.category_records import LiveCategories, LiveCategory
from reconciler.resources.custom_field_records import (
    DROPDOWN,
    TEXT,
    USAGE,
    CustomFieldCatalogue,
    FieldDefinition,
)

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
        USAGE["companies"]: {"region": FieldDefinition(6, "Region", DROPDOWN)},
    }
)
BLIND_LEAD = (
    "The API shows none of the options of these dropdowns, so their values are written",
    "as {option_id: N}; for a clone, add each here under custom_field_options as",
    "`FIELD: {OPTION NAME: ID}` with the clone's ids, and write the values by name:",
)
SECTIONS_NOTE = (
    "A section that holds no category is not visible through the API: add any such",
    "section a clone needs to section_ids by hand.",
)


def test_options_seen_and_learned_and_the_sections_of_the_categories() -> None:
    learned = {"LEVEL": {"High": 5, "Low": 2, "Mid": 3}, "Region": {"North": 3}}
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
            "level": {"Low": 2, "Mid": 3, "High": 5},
            "Region": {"North": 3},
            "Tier": {"Gold": 7, "Silver": 8},
        },
        {"alpha": 10, "Zed": 20},
        (*BLIND_LEAD, "  - bay (assets)", "  - Zone (assets)", *SECTIONS_NOTE),
    )
    assert list(settings.custom_field_options) == ["level", "Region", "Tier"]
    assert list(settings.custom_field_options["level"]) == ["Low", "Mid", "High"]  # by id
    assert list(settings.section_ids) == ["alpha", "Zed"]


def test_without_categories_no_section_is_guessed() -> None:
    settings = clone_settings(CATALOGUE, {}, None)
    assert settings == CloneSettings(
        {"Tier": {"Gold": 7, "Silver": 8}},
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
