"""Custom field values as they reach the plan (`diff_values`): for each field type, what
a manifest value is sent as, how the live value reads before it, which values compare
equal, and the whole message and remedy of each value the service cannot take. The
definitions come from the API's answers in the shapes versions send
(`parse_definition`), so the option lists are read as the planner reads them."""

from __future__ import annotations

from datetime import date
from typing import Any

import pytest

from reconciler.kinds.custom_fields.planner import closest, diff_values
from reconciler.kinds.custom_fields.reader import (
    CustomFieldCatalogue,
    parse_definition,
)
from reconciler.manifest.models import OptionId

USAGE = 3
DEFINITIONS = [
    {"FieldID": 1, "FieldName": "Nickname", "Type": 1},
    {"FieldID": 2, "FieldName": "Start", "Type": 2},
    {
        "FieldID": 3,
        "FieldName": "Size",
        "Type": 3,
        # An option without a name, and one whose id is no number, cannot be named.
        "SelectionComboOptions": [
            {"OptionID": 11, "Name": "Small"},
            [12, "Large"],
            {"Id": "x", "Name": "Huge"},
            {"Value": 13},
            {"ID": 14, "Text": "Medium"},
            [15, "Tiny", "three items: not an option"],
        ],
    },
    {"FieldID": 4, "FieldName": "VIP", "Type": 4},
    {"FieldID": 5, "FieldName": "Tier", "Type": 3},
    {"FieldID": 6, "FieldName": "Remarks"},  # no type: text
]
CATALOGUE = CustomFieldCatalogue(
    {USAGE: {d["FieldName"].lower(): parse_definition(d, {}) for d in DEFINITIONS}}
)
IDS = {d["FieldName"]: d["FieldID"] for d in DEFINITIONS}
NEW = object()  # the entity does not exist yet


def run(name: str, value: Any, live: Any, catalogue: Any = CATALOGUE) -> Any:
    if live is NEW:
        items = None
    else:
        items = [] if live is None else [{"FieldID": IDS.get(name, 0), **live}]
        items.append({"Value": "no FieldID: not a value"})
    fields, operations, problems = diff_values(
        catalogue=catalogue,
        usage=USAGE,
        desired={name: value},
        live_items=items,
        set_path="/api/SetCustomFieldForUser",
        entity_id=9,
        address='users["bob"]',
        location="u.yaml:1:3",
        field_location=lambda field: "u.yaml:4:7" if field == "Size" else None,
    )
    out = [(f.path, f.before, f.after) for f in fields]
    out += [(o.service, o.method, o.path, o.params, o.description) for o in operations]
    out += [(d.severity, d.address, d.message, d.remedy, d.location) for d in problems]
    return out


def change(name: str, before: Any, after: Any, sent: str) -> list[Any]:
    return [
        (f"custom_fields.{name}", before, after),
        (
            "helpdesk",
            "POST",
            "/api/SetCustomFieldForUser",
            {"id": 9, "fieldId": IDS[name], "value": sent},
            f"set {name}",
        ),
    ]


def problem(message: str, remedy: str | None, where: str = "u.yaml:1:3") -> list[Any]:
    return [("error", 'users["bob"]', message, remedy, where)]


CASES: list[tuple[str, str, Any, Any, list[Any]]] = [
    # text: trailing white space is no difference; other values are sent as text
    ("text equal but trailing space", "Nickname", "Bob  ", {"Value": "Bob \n"}, []),
    ("text set", "Nickname", "Bob", None, change("Nickname", None, "Bob", "Bob")),
    ("text changed", "Nickname", "Bob", {"Value": "Rob"}, change("Nickname", "Rob", "Bob", "Bob")),
    ("text cleared", "Nickname", None, {"Value": "Rob"}, change("Nickname", "Rob", None, "")),
    ("text blank is null", "Nickname", "  ", {"Value": " "}, []),
    ("text from a boolean", "Remarks", False, None, change("Remarks", None, "false", "false")),
    (
        "text from true",
        "Remarks",
        True,
        {"Value": "false"},
        change("Remarks", "false", "true", "true"),
    ),
    (
        "text from a date",
        "Remarks",
        date(2024, 3, 4),
        None,
        change("Remarks", None, "2024-03-04", "2024-03-04"),
    ),
    ("text from a number", "Remarks", 5, {"Value": "5"}, []),
    (
        "option id for text",
        "Nickname",
        OptionId(option_id=7),
        None,
        problem("'Nickname' is not a dropdown: option_id does not apply", None),
    ),
    # a new entity: every value given is set, a null one is not
    ("new entity", "Nickname", "Bob", NEW, change("Nickname", None, "Bob", "Bob")),
    ("new entity, null", "Nickname", None, NEW, []),
    ("new entity, checkbox false", "VIP", False, NEW, change("VIP", None, False, "false")),
    # checkbox
    ("checkbox set", "VIP", True, {"Value": "False"}, change("VIP", False, True, "true")),
    ("checkbox as text", "VIP", " TRUE ", {"Value": "true"}, []),
    (
        "checkbox false as text",
        "VIP",
        "False",
        {"Value": " true "},
        change("VIP", True, False, "false"),
    ),
    (
        "checkbox not a flag",
        "VIP",
        "yes",
        None,
        problem("'VIP' is a checkbox: use true or false, not 'yes'", None),
    ),
    (
        "checkbox a number",
        "VIP",
        1,
        None,
        problem("'VIP' is a checkbox: use true or false, not 1", None),
    ),
    # date: each spelling of one day is that day
    ("date as text, live timestamp", "Start", "01/02/2024", {"Value": "2024-01-02T00:00:00Z"}, []),
    ("date, live dotted", "Start", date(2024, 1, 2), {"Value": "02.01.2024"}, []),
    ("date, live day in UTC", "Start", date(2024, 1, 2), {"Value": "2024-01-02Z"}, []),
    ("date, live US with time", "Start", "2024-01-02", {"Value": "1/2/2024 10:30:00 AM"}, []),
    (
        "date changed",
        "Start",
        "2 Jan 2024",
        {"Value": "Jan 03, 2024"},
        change("Start", "2024-01-03", "2024-01-02", "2024-01-02"),
    ),
    (
        "date, live not a date",
        "Start",
        "2024/01/02",
        {"Value": " soon "},
        change("Start", "soon", "2024-01-02", "2024-01-02"),
    ),
    (
        "date not one",
        "Start",
        "someday",
        None,
        problem("'Start' is a date: 'someday' is not one", None),
    ),
    # dropdown: by option name (any case) or id; shown by name
    ("dropdown by name", "Size", "large", {"OptionID": 11}, change("Size", "Small", "Large", "12")),
    ("dropdown by id", "Size", OptionId(option_id=11), {"Value": "Small"}, []),
    ("dropdown live by id text", "Size", "Small", {"Value": " 11 "}, []),
    ("dropdown live option 0", "Size", "Small", {"OptionID": 0, "Value": "small"}, []),
    (
        "dropdown unnamed live option",
        "Size",
        "Small",
        {"Value": "99"},
        change("Size", "option 99", "Small", "11"),
    ),
    (
        "dropdown live unknown name",
        "Size",
        "Small",
        {"Value": "Purple"},
        change("Size", "Purple", "Small", "11"),
    ),
    ("dropdown cleared", "Size", None, {"OptionID": 12}, change("Size", "Large", None, "")),
    ("dropdown live empty", "Size", "Small", {"Value": " "}, change("Size", None, "Small", "11")),
    (
        "dropdown no such option",
        "Size",
        "Smal",
        None,
        problem(
            "'Size' has no option 'Smal'; did you mean 'Small'?",
            "options: Large, Medium, Small",
            "u.yaml:4:7",
        ),
    ),
    (
        "dropdown nothing close",
        "Size",
        "Zzz",
        None,
        problem("'Size' has no option 'Zzz'", "options: Large, Medium, Small", "u.yaml:4:7"),
    ),
    (
        "dropdown options not listed",
        "Tier",
        "Gold",
        None,
        problem(
            "the API does not list the options of dropdown 'Tier', so 'Gold' cannot be resolved",
            "give the value as {option_id: N}, or map option names to ids under "
            "settings.custom_field_options.users.Tier",
        ),
    ),
    (
        "dropdown options not listed, by id",
        "Tier",
        OptionId(option_id=4),
        {"Value": "3"},
        change("Tier", "option 3", "option 4", "4"),
    ),
    # a field the service does not define
    (
        "unknown field",
        "Nicknames",
        "x",
        None,
        problem(
            "custom field 'Nicknames' does not exist; did you mean 'Nickname'?",
            "fields: Nickname, Remarks, Size, Start, Tier, VIP",
        ),
    ),
]


@pytest.mark.parametrize(
    ("name", "value", "live", "expected"),
    [case[1:] for case in CASES],
    ids=[case[0] for case in CASES],
)
def test_a_value_of_each_field_type_reaches_the_plan_as_the_service_takes_it(
    name: str, value: Any, live: Any, expected: list[Any]
) -> None:
    assert run(name, value, live) == expected


def test_no_catalogue_read_means_no_field_exists() -> None:
    # No remedy of its own: the plan names the fields to create once
    # (kinds/custom_fields/planner.py).
    assert run("Nickname", "Bob", None, catalogue=None) == problem(
        "custom field 'Nickname' does not exist", None
    )


def test_a_catalogue_read_without_the_usage_type_has_no_field_of_it() -> None:
    other_usage = CustomFieldCatalogue({USAGE + 1: CATALOGUE.by_usage[USAGE]})
    assert run("Nickname", "Bob", None, catalogue=other_usage) == problem(
        "custom field 'Nickname' does not exist", None
    )


def test_a_problem_or_an_equal_value_does_not_stop_the_fields_after_it() -> None:
    fields, operations, problems = diff_values(
        catalogue=CATALOGUE,
        usage=USAGE,
        desired={
            "Nope": 1,
            "VIP": "yes",
            "Remarks": "same",
            "Start": "2024-01-02",
            "Size": "Large",
        },
        live_items=[
            {"FieldID": 6, "Value": "same"},
            {"FieldID": 3, "Value": "Small"},
        ],
        set_path="/api/SetCustomFieldForCompany",
        entity_id=4,
        address='companies["Acme"]',
        location=None,
    )
    assert [(f.path, f.before, f.after) for f in fields] == [
        ("custom_fields.Start", None, "2024-01-02"),
        ("custom_fields.Size", "Small", "Large"),
    ]
    assert [(o.path, o.params) for o in operations] == [
        ("/api/SetCustomFieldForCompany", {"id": 4, "fieldId": 2, "value": "2024-01-02"}),
        ("/api/SetCustomFieldForCompany", {"id": 4, "fieldId": 3, "value": "12"}),
    ]
    assert [(d.message, d.location) for d in problems] == [
        ("custom field 'Nope' does not exist", None),
        ("'VIP' is a checkbox: use true or false, not 'yes'", None),
    ]


def test_a_new_entity_sets_the_values_after_a_null_one() -> None:
    fields, _, _ = diff_values(
        catalogue=CATALOGUE,
        usage=USAGE,
        desired={"Nickname": None, "Remarks": "r"},
        live_items=None,
        set_path="/api/SetCustomFieldForUser",
        entity_id=9,
        address='users["bob"]',
        location=None,
    )
    assert [(f.path, f.before, f.after) for f in fields] == [("custom_fields.Remarks", None, "r")]


@pytest.mark.parametrize(
    ("typed", "suggestion"),
    [
        # at most three, the closest first
        ("Smal", "; did you mean 'Small' or 'Smalls' or 'Smaller'?"),
        # as far as half alike
        ("Remx", "; did you mean 'Remarks'?"),
        ("Rx", ""),
    ],
)
def test_a_misspelt_name_is_offered_the_closest_one(typed: str, suggestion: str) -> None:
    names = ["Small", "Smaller", "Smallest", "Smalls", "Remarks", "Tier"]
    assert closest(typed, names) == suggestion
