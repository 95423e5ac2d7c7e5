"""The options of a dropdown custom field as each version of the service sends them
(`SelectionComboOptions`): id and name under any of their spellings, in any key case,
or `[id, name]` pairs. What is read here is what a manifest value may name."""

from __future__ import annotations

from typing import Any

import pytest

from reconciler.kinds.custom_fields.reader import parse_definition, parse_options


@pytest.mark.parametrize(
    ("raw", "options"),
    [
        ([{"OptionID": 1, "Name": "Red"}], {1: "Red"}),
        ([{"id": "2", "text": "Blue"}], {2: "Blue"}),
        ([{"Value": 3, "Label": "Green"}], {3: "Green"}),
        ([{"KEY": 4, "TITLE": 5}], {4: "5"}),
        ([{"OptionId": 1, "Id": 9, "Name": "a", "Text": "b"}], {1: "a"}),  # first spelling wins
        ([{"Value": 7, "Key": 8, "Label": "x", "Title": "y"}], {7: "x"}),
        ([[6, "Grey"], (7, "Black")], {6: "Grey", 7: "Black"}),
        # neither a pair nor an object: skipped, the rest read
        ([[6, "Grey", "extra"], [8], "Red", [9, "Navy"]], {9: "Navy"}),
        (
            [{"Id": 1}, {"Name": "no id"}, {"Id": "x", "Name": "bad"}, {"Id": 2, "Name": "ok"}],
            {2: "ok"},
        ),  # an id no number, a missing name: skipped, the rest read
        ([[None, "n"], ["9", None], [10, "ten"]], {10: "ten"}),
        ("Red;Blue", {}),
        (None, {}),
        ({"Id": 1, "Name": "Red"}, {}),  # one object, not a list
    ],
)
def test_options_in_every_shape(raw: Any, options: dict[int, str]) -> None:
    assert parse_options(raw) == options


def test_configured_options_stand_in_only_when_the_service_sends_none() -> None:
    extra = {"Red": 1, "Blue": 2}
    bare = parse_definition({"FieldID": "5", "FieldName": 7, "Type": None}, extra)
    assert (bare.id, bare.name, bare.type) == (5, "7", 1)
    assert bare.option_names == {1: "Red", 2: "Blue"}
    assert bare.options == {"red": 1, "blue": 2}
    sent = {"FieldID": 5, "FieldName": "Colour", "Type": 3,
            "SelectionComboOptions": [{"Id": 4, "Name": " Dark  Green "}]}  # fmt: skip
    listed = parse_definition(sent, extra)
    assert (listed.type, listed.option_names) == (3, {4: " Dark  Green "})
    assert listed.options == {"dark green": 4}
