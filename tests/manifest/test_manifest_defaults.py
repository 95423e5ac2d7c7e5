"""The manifest format's defaults and openness (manifest/models.py), as loading gives them:
an empty `settings` is every documented default, a kind written with no entries (null) is
none, an entry with its key only leaves every other field unmanaged (None, but
`send_welcome_email`, which is false), keys lose the white space around them, workspace
employees keep unknown fields as written, and the fields an entry manages are those
written (never `previously`)."""

from __future__ import annotations

from typing import Any

import pytest

from reconciler.errors import ManifestError
from reconciler.manifest.document import managed_fields
from reconciler.manifest.loader import load_manifest_text


def dumped(text: str) -> dict[str, Any]:
    return load_manifest_text(text, "m.yaml").manifest.model_dump(mode="json")


EMPTY_KINDS = {
    "companies": [],
    "departments": [],
    "categories": [],
    "tech_permissions": [],
    "users": [],
    "assets": [],
    "automation_rules": [],
}


def test_an_empty_settings_and_null_kinds_are_the_defaults() -> None:
    text = "settings: {}\n" + "".join(f"{kind}:\n" for kind in EMPTY_KINDS)
    assert dumped(text + "workspace:\n  employees:\n") == {
        "settings": {
            "prune": [],
            "ignore_fields": {},
            "safety": {"max_change_percent": 30.0, "min_existing": 10, "max_irreversible": 1},
            "ownership": None,
            "scope": {
                "users": None,
                "assets": None,
                "companies": None,
                "departments": None,
                "categories": None,
                "employees": None,
            },
            "custom_field_options": {"companies": {}, "users": {}, "assets": {}},
            "section_ids": {},
            "employee_key": "email",
            "allow_variables": [],
        },
        **EMPTY_KINDS,
        "workspace": {"employees": []},
    }


def test_an_entry_with_its_key_only_manages_nothing_else() -> None:
    text = (
        "companies: [{name: A}]\ndepartments: [{name: D}]\ncategories: [{name: C}]\n"
        "tech_permissions: [{category: C, technicians: []}]\nusers: [{username: u}]\n"
        "assets: [{serial_number: S}]\nautomation_rules: [{id: 1, enabled: false}]\n"
        "workspace:\n  employees: [{email: e@acme.com}]\n"
    )
    unset = dict.fromkeys
    assert dumped(text) == {
        "settings": None,
        "companies": [
            {"name": "A", **unset(("previously", "email_domains", "notes", "custom_fields"))}
        ],
        "departments": [{"name": "D"}],
        "categories": [{"name": "C", "section": None}],
        "tech_permissions": [{"category": "C", "technicians": []}],
        "users": [
            {
                "username": "u",
                **unset(
                    (
                        "previously", "email", "first_name", "last_name", "phone", "location",
                        "notes", "company", "department", "is_admin", "disabled",
                    )
                ),
                "send_welcome_email": False,
                "custom_fields": None,
            }
        ],
        "assets": [
            {
                "serial_number": "S",
                **unset(
                    (
                        "previously", "model_name", "manufacturer", "type", "supplier",
                        "location", "comments", "quantity", "company", "assigned_users",
                        "enabled", "custom_fields",
                    )
                ),
            }
        ],
        "automation_rules": [{"id": 1, "name": None, "enabled": False}],
        "workspace": {"employees": [{"email": "e@acme.com", "previously": None}]},
    }  # fmt: skip


def test_fields_written_are_the_managed_ones_and_employees_are_open() -> None:
    text = (
        "settings: {employee_key: id}\n"
        "users: [{username: '  al  ', email: a@acme.com, previously: [x]},"
        " {username: b, send_welcome_email: true}]\n"
        "workspace: {employees: [{email: b@acme.com, id: 1, firstName: B, previously: ['2']},"
        " {firstName: C, id: 7}]}\n"
    )
    manifest = load_manifest_text(text, "m.yaml").manifest
    assert [user.username for user in manifest.users] == ["al", "b"]
    assert [managed_fields(user) for user in manifest.users] == [
        {"username", "email"},
        {"username", "send_welcome_email"},
    ]
    assert manifest.users[1].send_welcome_email is True
    assert manifest.workspace is not None
    employees = manifest.workspace.employees
    assert [employee.fields for employee in employees] == [
        {"email": "b@acme.com", "id": 1, "firstName": "B"},
        {"firstName": "C", "id": 7},
    ]
    assert [managed_fields(employee) for employee in employees] == [
        {"email", "id", "firstName"},
        {"id", "firstName"},
    ]
    assert employees[0].previously == ["2"]


def test_a_key_of_white_space_only_is_empty() -> None:
    with pytest.raises(ManifestError) as refused:
        load_manifest_text("companies: [{name: '   '}]\n", "m.yaml")
    assert refused.value.problems == ["m.yaml:1:20: companies[0].name: must not be empty"]
