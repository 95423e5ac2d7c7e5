"""Live custom field values as an export writes them (export/entries.py): each type as the
manifest value `plan` reads back as equal, the dropdown option by name where it can be
named, and a note for each value that cannot be written as itself."""

from __future__ import annotations

from datetime import UTC, date, datetime
from typing import Any

import pytest

from reconciler.export.entries import LearnedOptions, LiveSnapshot, ValueExporter
from reconciler.export.result import convert
from reconciler.export.selection import Selection
from reconciler.kinds.companies.reader import LiveCompanies, LiveCompany
from reconciler.kinds.custom_fields.reader import (
    CHECKBOX,
    DATE,
    DROPDOWN,
    KIND,
    MULTILINE,
    TEXT,
    USAGE,
    CustomFieldCatalogue,
    FieldDefinition,
)

USERS = USAGE["users"]
FIELDS = {
    "tier": FieldDefinition(
        1, "Tier", DROPDOWN, {"gold": 7, "silver": 8}, {7: "Gold", 8: "Silver"}
    ),
    "since": FieldDefinition(2, "Since", DATE),
    "vip": FieldDefinition(3, "VIP", CHECKBOX),
    "notes": FieldDefinition(4, "Notes", MULTILINE),
    "level": FieldDefinition(5, "Level", DROPDOWN),
    "code": FieldDefinition(6, "Code", TEXT),
}
CATALOGUE = CustomFieldCatalogue({USERS: FIELDS})


def exporter(include_empty: bool = False) -> tuple[ValueExporter, list[str], LearnedOptions]:
    notes: list[str] = []
    learned = LearnedOptions()
    return ValueExporter(CATALOGUE, USERS, include_empty, learned, notes), notes, learned


def test_each_type_as_the_manifest_writes_it() -> None:
    values, notes, learned = exporter()
    items: list[dict[str, Any]] = [
        {"FieldID": 1, "Value": "Silver"},
        {"FieldID": 2, "Value": "2027-01-31"},
        {"FieldID": 3, "Value": "True"},
        {"FieldID": 4, "Value": "a\nb  \n"},
        {"FieldID": "5", "Value": "x", "OptionID": 9, "ValueWithOption": " Nine "},
        {"FieldID": 6, "Value": "  0012  "},
    ]
    assert values.values(items, "users/a") == {
        "Tier": "Silver",
        "Since": date(2027, 1, 31),
        "VIP": True,
        "Notes": "a\nb\n",
        "Level": "Nine",
        "Code": "  0012",
    }
    assert notes == []
    assert learned.settings() == {USERS: {"Level": {"Nine": 9}}}


def test_values_that_cannot_be_written_as_themselves_are_noted() -> None:
    values, notes, _ = exporter()
    items: list[dict[str, Any]] = [
        {"FieldID": 2, "Value": "31/01/2027"},
        {"FieldID": 3, "Value": "maybe"},
        {"FieldID": 1, "Value": "Platinum"},
        {"FieldID": 99, "FieldName": "tier", "Value": "x"},
        {"FieldID": 98, "FieldName": "Unknown", "Value": "x"},
        {"FieldID": 97, "FieldName": "VIP"},
        {"FieldID": "bad"},
        {"Value": "no id"},
    ]
    assert values.values(items, "users/a") == {}
    assert notes == [
        "users/a: custom field 'Tier' is left out: 'Platinum' is a dropdown value that is no "
        "option id",
        "users/a: custom field 'Since' is left out: '31/01/2027' is a date the planner cannot read",
        "users/a: custom field 'VIP' is left out: 'maybe' is a checkbox value other than "
        "true/false",
        "users/a: custom field 'tier' (id 99) is left out: another field has the same name, "
        "and manifests name fields",
    ]


def test_empty_values_are_written_only_when_asked() -> None:
    values, _, _ = exporter(include_empty=True)
    assert values.values([{"FieldID": 6, "Value": " "}], "users/a") == dict.fromkeys(
        ["Tier", "Since", "VIP", "Notes", "Level", "Code"]
    )
    values, _, _ = exporter()
    assert values.values([{"FieldID": 6, "Value": " "}], "users/a") == {}


def test_a_dropdown_option_is_named_only_when_the_name_leads_back_to_it() -> None:
    values, _, learned = exporter()
    # a name the field's options do not give back as this id: by id
    odd = FieldDefinition(1, "Tier", DROPDOWN, {"gold": 7}, {8: "Gold"})
    odd_values = ValueExporter(
        CustomFieldCatalogue({USERS: {"tier": odd}}), USERS, False, learned, []
    )
    assert odd_values.values([{"FieldID": 1, "OptionID": 8}], "users/a") == {
        "Tier": {"option_id": 8}
    }
    # options not listed: a name learned once stands for one id only
    assert values.values([{"FieldID": 5, "OptionID": 9, "ValueWithOption": "Nine"}], "u/a") == {
        "Level": "Nine"
    }
    assert values.values([{"FieldID": 5, "OptionID": 10, "ValueWithOption": "nine"}], "u/b") == {
        "Level": {"option_id": 10}
    }
    # no usable name: a number, blank, or an item naming another option
    for item in [
        {"FieldID": 5, "OptionID": 11, "ValueWithOption": "11"},
        {"FieldID": 5, "OptionID": 11, "ValueWithOption": "  "},
        {"FieldID": 5, "Value": "11", "OptionID": 0, "ValueWithOption": "Eleven"},
    ]:
        assert values.values([item], "u/c") == {"Level": {"option_id": 11}}
    assert learned.settings() == {USERS: {"Level": {"Nine": 9}}}


def test_the_learned_options_in_the_order_of_fields_and_ids() -> None:
    learned = LearnedOptions()
    zeta, alpha = FieldDefinition(1, "zeta", DROPDOWN), FieldDefinition(2, "Alpha", DROPDOWN)
    assert learned.learn(USERS, zeta, "B", 5)
    assert learned.learn(USERS, zeta, "A", 6)
    assert learned.learn(USERS, zeta, "b", 5)  # the same pair again, in another case
    assert not learned.learn(USERS, zeta, "a", 7)  # the name stands for another option already
    assert learned.learn(USERS, alpha, "X", 1)
    learned.by_usage[USERS]["empty"] = {}
    assert learned.settings() == {USERS: {"Alpha": {"X": 1}, "zeta": {"B": 5, "A": 6}}}
    assert list(learned.settings()[USERS]) == ["Alpha", "zeta"]


# Companies' custom field values as `reconciler export` writes them (export/entries.py, result.py,
# yamlout.py), converted from a live snapshot without a service: the whole
# `companies.yaml` and `settings.yaml`, and every note. Among the values, one of a second field
# named like a defined one (another id): manifests name fields, so it is left out, and said; an
# empty one of such a field is passed over without a word.

COMPANY_CATALOGUE = CustomFieldCatalogue(
    {
        USAGE["companies"]: {
            "tier": FieldDefinition(1, "Tier", DROPDOWN, {"gold": 7}, {7: "Gold"}),
            "region": FieldDefinition(2, "Region", DROPDOWN),
            "since": FieldDefinition(3, "Since", DATE),
            "vip": FieldDefinition(4, "VIP", CHECKBOX),
            "notes": FieldDefinition(5, "Notes", MULTILINE),
            "code": FieldDefinition(6, "Code", TEXT),
        }
    }
)
ACME = (
    {"FieldID": 1, "Value": "Gold"},
    {"FieldID": 2, "OptionID": 31, "ValueWithOption": " North "},
    {"FieldID": 3, "Value": "2027-01-31"},
    {"FieldID": 4, "Value": "FALSE"},
    {"FieldID": 5, "Value": "line 1\nline 2  \n\n"},
    {"FieldID": 6, "Value": " A-1  "},
    # A second field named `code` (the catalogue keeps one per name): left out.
    {"FieldID": 16, "FieldName": "CODE", "Value": "B-2"},
)
GLOBEX = (
    {"FieldID": 2, "OptionID": 32, "ValueWithOption": "32"},
    {"FieldID": 3, "Value": "31/01/2027"},
    {"FieldID": 16, "FieldName": "Code", "Value": "  "},  # empty: nothing to say
    {"FieldID": 17, "FieldName": "Unknown", "Value": "x"},  # no field of companies
)
SNAPSHOT = LiveSnapshot(
    ("companies",),
    {
        "companies": LiveCompanies(
            {},
            items=(
                LiveCompany(1, "Acme", (), None, ACME),
                LiveCompany(2, "Globex", (), None, GLOBEX),
                LiveCompany(3, "Initech", (), None, ()),
                LiveCompany(4, "Umbrella", (), None),  # values not read
            ),
        ),
        KIND: COMPANY_CATALOGUE,
    },
)
NOTES = [
    "companies/Acme: custom field 'CODE' (id 16) is left out: another field has the same "
    "name, and manifests name fields",
    "companies/Globex: custom field 'Since' is left out: '31/01/2027' is a date the planner "
    "cannot read",
]
COMPANIES = """\
# yaml-language-server: $schema=manifest.schema.json
# Exported by `reconciler export` from https://h.example/helpdesk at 2026-01-02T03:04:05Z.
companies:
  - name: Acme
    custom_fields:
      Tier: Gold
      Region: North
      Since: 2027-01-31
      VIP: false
      Notes: |
        line 1
        line 2
      Code: ' A-1'
  - name: Globex
    custom_fields:
      Region: {option_id: 32}
  - name: Initech
  - name: Umbrella
"""
# With --include-empty: each field of a company whose values were read, null when empty;
# a value left out with a note (Globex's date) stays out.
COMPANIES_EMPTY = """\
# yaml-language-server: $schema=manifest.schema.json
# Exported by `reconciler export` from https://h.example/helpdesk at 2026-01-02T03:04:05Z.
companies:
  - name: Acme
    email_domains: []
    notes: ''
    custom_fields:
      Tier: Gold
      Region: North
      Since: 2027-01-31
      VIP: false
      Notes: |
        line 1
        line 2
      Code: ' A-1'

  - name: Globex
    email_domains: []
    notes: ''
    custom_fields:
      Tier: null
      Region: {option_id: 32}
      VIP: null
      Notes: null
      Code: null

  - name: Initech
    email_domains: []
    notes: ''
    custom_fields:
      Tier: null
      Region: null
      Since: null
      VIP: null
      Notes: null
      Code: null

  - name: Umbrella
    email_domains: []
    notes: ''
"""
SETTINGS = """\
# yaml-language-server: $schema=manifest.schema.json
# Exported by `reconciler export` from https://h.example/helpdesk at 2026-01-02T03:04:05Z.
# What the API cannot create but the manifests refer to, as this helpdesk has it: the
# ids are this helpdesk's. To configure another helpdesk from these manifests, create
# the custom fields, their options and the category sections in its admin panel first,
# then put its own ids here.
settings:
  custom_field_options:
    companies:
      Region:
        North: 31
      Tier:
        Gold: 7
"""


def export(include_empty: bool) -> tuple[dict[str, str], list[str]]:
    result = convert(
        SNAPSHOT,
        Selection.build(kinds=["companies"]),
        include_empty=include_empty,
        sources={"helpdesk": "https://h.example/helpdesk"},
        now=datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC),
    )
    return result.files(), list(result.warnings)


@pytest.mark.parametrize("include_empty", [False, True])
def test_custom_field_values_of_companies_as_written(include_empty: bool) -> None:
    files, notes = export(include_empty)
    assert notes == NOTES
    assert list(files) == ["settings.yaml", "companies.yaml"]
    assert files["companies.yaml"] == (COMPANIES_EMPTY if include_empty else COMPANIES)
    assert files["settings.yaml"] == SETTINGS


def test_learned_options_are_listed_by_field_name_without_regard_to_case() -> None:
    learned = LearnedOptions()
    for name in ("zeta", "Beta", "alpha"):
        assert learned.learn(USERS, FieldDefinition(1, name, DROPDOWN), "X", 1)
    # As written in settings.yaml: `alpha`, `Beta`, `zeta` (not `Beta`, `alpha`, `zeta`).
    assert list(learned.settings()[USERS]) == ["alpha", "Beta", "zeta"]


def test_learned_options_of_two_kinds_fields_of_one_name_are_kept_apart() -> None:
    learned = LearnedOptions()
    companies = USAGE["companies"]
    assert learned.learn(USERS, FieldDefinition(1, "Tier", DROPDOWN), "Gold", 7)
    # The companies' Tier is another field: its Gold may be another option.
    assert learned.learn(companies, FieldDefinition(2, "Tier", DROPDOWN), "Gold", 9)
    assert learned.settings() == {companies: {"Tier": {"Gold": 9}}, USERS: {"Tier": {"Gold": 7}}}
