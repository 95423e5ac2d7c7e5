"""Users and workspace employees as `reconciler export` writes them
(kinds/users/export.py, kinds/employees/export.py), converted from a live snapshot without
a service: each field as the manifest reads it back, empty ones only with
`--include-empty`, and the notes for what cannot be written."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest

from reconciler.export.entries import LiveSnapshot
from reconciler.export.result import convert
from reconciler.export.selection import Selection
from reconciler.kinds.employees.reader import LiveEmployees
from reconciler.kinds.users.export import live_user_names
from reconciler.kinds.users.reader import LiveUser, LiveUsers

USERS = (
    LiveUser(
        1,
        "ann",
        "  ann@acme.com ",
        first_name="Ann  ",
        last_name="Lee",
        location=" HQ",
        notes="line 1\nline 2  ",
        company="  Acme ",
        department="   ",
        is_admin=True,
    ),
    LiveUser(2, "Bob", "   ", department="IT", disabled=True),
    LiveUser(3, "bob", "bob@acme.com", custom_values=()),
    LiveUser(4, "", "nobody@acme.com"),
    LiveUser(5, "cy", "cy@acme.com", department=" Sales ", disabled=True),
)
EMPLOYEES = (
    {
        "id": 7,
        "name": "Zed",
        "email": " zed@acme.com ",
        "createdAt": "x",
        "updatedAt": "y",
        "team": "",
        "manager": None,
        "start": "2026-01-02",
    },
    {"id": 8, "email": "Amy@Acme.com", "name": "Amy"},
    {"id": 9, "name": "No mail"},
    {"id": 10, "email": "dup@acme.com"},
    {"id": 11, "email": "DUP@acme.com "},
)
SNAPSHOT = LiveSnapshot(
    ("users", "workspace.employees"),
    {
        "users": LiveUsers({}, items=USERS),
        "workspace.employees": LiveEmployees("email", {}, records=EMPLOYEES),
    },
)
NOTES = [
    "users/Bob: 2 live objects share this name (case and spacing aside): only the last "
    "listed, the one `plan` compares with, is written",
    "workspace.employees: 1 employee(s) without 'email' cannot be named by a manifest "
    "entry: left out",
    "workspace.employees/dup@acme.com: 2 live objects share this key, so no entry can name "
    "one of them: none is written (give each its own key to manage them)",
]
ANN = {
    "username": "ann",
    "email": "ann@acme.com",
    "first_name": "Ann",
    "last_name": "Lee",
    "location": " HQ",
    "notes": "line 1\nline 2\n",
    "company": "Acme",
    "is_admin": True,
    "disabled": False,
}
EMPTY_USER = {
    "first_name": "",
    "last_name": "",
    "phone": "",
    "location": "",
    "notes": "",
    "company": None,
    "department": None,
}


USER_FIELDS = [
    "username",
    "email",
    "first_name",
    "last_name",
    "phone",
    "location",
    "notes",
    "company",
    "department",
    "is_admin",
    "disabled",
    "custom_fields",
]


@pytest.mark.parametrize("include_empty", [False, True])
def test_users_and_employees_as_written(include_empty: bool) -> None:
    selection = Selection.build(kinds=["users", "workspace.employees"])
    now = datetime(2026, 1, 1, tzinfo=UTC)
    result = convert(SNAPSHOT, selection, include_empty=include_empty, now=now)
    bob = {"username": "bob", "email": "bob@acme.com", "is_admin": False, "disabled": False}
    cy = {
        "username": "cy",
        "email": "cy@acme.com",
        "department": "Sales",
        "is_admin": False,
        "disabled": True,
    }
    ann = dict(ANN)
    amy = {"email": "Amy@Acme.com", "name": "Amy"}
    zed: dict[str, Any] = {"email": "zed@acme.com", "name": "Zed", "start": "2026-01-02"}
    if include_empty:
        ann = {**EMPTY_USER, **ann}
        bob = {**EMPTY_USER, **bob, "custom_fields": None}  # its values were read: none
        cy = {**EMPTY_USER, **cy}
        zed = {
            "email": "zed@acme.com",
            "name": "Zed",
            "team": "",
            "manager": None,
            "start": "2026-01-02",
        }
    assert result.entries == {"users": [ann, bob, cy], "workspace.employees": [amy, zed]}
    # Keys in the order of the manifest's fields, then as the service gives them.
    for user in result.entries["users"]:
        assert list(user) == [name for name in USER_FIELDS if name in user]
    assert list(result.entries["workspace.employees"][1]) == list(zed)
    assert result.warnings == NOTES


def test_only_the_selected_users_and_employees() -> None:
    selection = Selection.build(
        targets=["users/ANN", "workspace.employees/amy@acme.com"],
        excludes=["users/bob"],
    )
    result = convert(SNAPSHOT, selection)
    assert result.entries == {
        "users": [ANN],
        "workspace.employees": [{"email": "Amy@Acme.com", "name": "Amy"}],
    }
    assert result.warnings == [NOTES[1]]  # the unkeyed count is of every record


def test_user_names_by_id_for_assignments() -> None:
    assert live_user_names(USERS) == {1: "ann", 2: "Bob", 3: "bob", 5: "cy"}
