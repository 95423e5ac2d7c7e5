"""The custom fields' planner beyond the data-driven cases: the values of fields a kind has
none of, told once per kind (`told_once`)."""

from __future__ import annotations

from reconciler.kinds.custom_fields.planner import told_once, unknown_message
from reconciler.kinds.custom_fields.reader import CustomFieldCatalogue
from reconciler.plans import error, warning

NO_FIELDS = {"custom_fields": CustomFieldCatalogue({})}
TOLD = error(
    "the helpdesk defines no custom fields of users, and the manifests set 2 value(s) of "
    "1 field(s): 'Badge'",
    "users",
    "create these custom fields of users in the helpdesk (its settings), then plan again; "
    "or remove the values from the manifests",
    "u.yaml:1:3",
)


def test_the_unknown_fields_of_a_kind_without_any_are_told_once_where_the_first_was() -> None:
    found = [
        error(unknown_message("Badge"), 'users["amy"]', None, "u.yaml:1:3"),
        error(unknown_message("badge"), 'users["bob"]', None, "u.yaml:4:3"),
    ]
    assert told_once(found, NO_FIELDS) == [TOLD]


def test_only_the_unknown_field_errors_themselves_are_told_once() -> None:
    """A warning or an error with a remedy of the same words, and an error that only looks
    like one, are other diagnostics: each is kept as it is, in its place."""
    others = [
        warning(unknown_message("Floor"), 'users["cy"]', None, "u.yaml:7:3"),
        error(unknown_message("Floor"), 'users["dee"]', "fields: Floor", "u.yaml:9:3"),
        error('custom field "Floor" does not exist', 'users["eve"]', None, "u.yaml:11:3"),
    ]
    found = [
        error(unknown_message("Badge"), 'users["amy"]', None, "u.yaml:1:3"),
        *others,
        error(unknown_message("Badge"), 'users["bob"]', None, "u.yaml:4:3"),
    ]
    assert told_once(found, NO_FIELDS) == [TOLD, *others]
