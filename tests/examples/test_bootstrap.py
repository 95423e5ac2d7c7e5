"""Bootstrapping the example: a helpdesk that holds only what the API cannot create (the
catalogue seed: the administrator, custom field definitions, sections, rules), planned
against examples/acme with the real workflow, in-process. The plan must be free of errors
and warnings and create every object of the manifests; it is not executed here (that is
apply's end-to-end test).
"""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from reconciler.clients.auth import Secret
from reconciler.clients.connection import Connection, HelpdeskConnection, WorkspaceConnection
from reconciler.manifest.desired import DesiredState
from reconciler.manifest.loader import load_manifests
from reconciler.manifest.models import Settings
from reconciler.plans import Change, Plan, address
from reconciler.sandbox import records
from reconciler.sandbox.app import create_app
from reconciler.sandbox.config import SandboxConfig
from reconciler.sandbox.seed import Credentials, initialise
from reconciler.sandbox.state import SandboxState
from reconciler.sandbox.store import Store
from reconciler.session.workflow import read_and_plan

ROOT = Path(__file__).parents[2]
EXAMPLE = ROOT / "examples" / "acme"
CATALOGUE_SEED = ROOT / "reconciler" / "sandbox" / "seeds" / "acme-catalogue.yaml"
CUSTOM_FIELD_CALLS = {
    "companies": "/api/SetCustomFieldForCompany",
    "users": "/api/SetCustomFieldForUser",
    "assets": "/api/SetCustomFieldForAsset",
}


def fold(text: str) -> str:
    return " ".join(text.split()).casefold()


@pytest.fixture(scope="module")
def desired() -> DesiredState:
    return load_manifests([EXAMPLE], env={})


def fresh_catalogue() -> tuple[SandboxState, Credentials]:
    state = SandboxState(Store(None), SandboxConfig())
    return state, initialise(state, CATALOGUE_SEED)


def plan_against(state: SandboxState, credentials: Credentials, desired: DesiredState) -> Plan:
    # In-process: the ASGI app is called directly, no socket is opened.
    transport = httpx.ASGITransport(app=create_app(state), client=("127.0.0.1", 5000))
    connection = Connection(
        HelpdeskConnection(
            "http://127.0.0.1/helpdesk",
            username=credentials.helpdesk_username,
            password=Secret(credentials.helpdesk_password),
        ),
        WorkspaceConnection("http://127.0.0.1/workspace", Secret(credentials.workspace_api_key)),
    )
    return asyncio.run(read_and_plan(desired, connection, transport=transport)).plan


@pytest.fixture(scope="module")
def bootstrap(desired: DesiredState) -> tuple[SandboxState, Plan]:
    state, credentials = fresh_catalogue()
    return state, plan_against(state, credentials, desired)


def changes_of(result: Plan, kind: str) -> dict[str, Change]:
    return {fold(c.key): c for c in result.changes if c.kind == kind}


def test_the_plan_has_no_errors_and_no_warnings(bootstrap: tuple[SandboxState, Plan]) -> None:
    result = bootstrap[1]
    assert not result.errors, [d.to_dict() for d in result.errors]
    assert not result.warnings, [d.to_dict() for d in result.warnings]


def test_the_plan_creates_every_object_and_disables_rule_102(
    desired: DesiredState, bootstrap: tuple[SandboxState, Plan]
) -> None:
    manifest, result = desired.manifest, bootstrap[1]
    assert manifest.workspace is not None
    wanted = (
        {("create", "companies", fold(c.name)) for c in manifest.companies}
        | {("create", "departments", fold(d.name)) for d in manifest.departments}
        | {("create", "categories", fold(c.name)) for c in manifest.categories}
        | {("create", "users", fold(u.username)) for u in manifest.users}
        | {
            ("create", "tech_permissions", fold(p.category))
            for p in manifest.tech_permissions
            if p.technicians
        }
        | {("create", "assets", fold(a.serial_number)) for a in manifest.assets}
        | {
            ("create", "workspace.employees", fold(e.fields["email"]))
            for e in manifest.workspace.employees
        }
        | {("disable", "automation_rules", "102")}
    )
    planned = {(c.action.value, c.kind, fold(c.key)) for c in result.changes}
    assert planned == wanted
    assert len(result.changes) == len(wanted)  # nothing twice
    (rule,) = [c for c in result.changes if c.kind == "automation_rules"]
    # The API switches rules with GET (helpdesk-api.md).
    assert [(o.method, o.path) for o in rule.operations] == [("GET", "/api/DisableRule/102")]


def test_the_administrator_apply_logs_in_with_is_left_alone(
    bootstrap: tuple[SandboxState, Plan],
) -> None:
    assert "admin" not in {fold(c.key) for c in bootstrap[1].changes}


def test_categories_go_into_the_sections_settings_section_ids_names(
    desired: DesiredState, bootstrap: tuple[SandboxState, Plan]
) -> None:
    ids = {fold(name): sid for name, sid in desired.settings.section_ids.items()}
    created = changes_of(bootstrap[1], "categories")
    for category in desired.manifest.categories:
        assert category.section is not None
        (operation,) = created[fold(category.name)].operations
        assert operation.path == "/api/AddCategory"
        assert operation.params == {"name": category.name, "sectionId": ids[fold(category.section)]}


def _custom_field_values(change: Change, path: str) -> dict[int, str]:
    return {
        int(o.params["fieldId"]): str(o.params["value"])
        for o in change.operations
        if o.path == path
    }


def _expected_values(state: SandboxState, kind: str, values: dict[str, Any]) -> dict[int, str]:
    """fieldId -> the value the API is sent: dropdowns as the option id the catalogue gives
    (the one settings.custom_field_options repeats), checkboxes as true/false, text without
    trailing white space (normalised away, so a block scalar's last newline is not sent)."""
    usage = records.USAGE_TYPES[kind]
    definitions = {
        fold(f["name"]): f for f in state.store.rows("custom_fields") if f["usage_type"] == usage
    }
    expected = {}
    for name, value in values.items():
        definition = definitions[fold(name)]
        if definition["options"]:
            options = {fold(o["name"]): o["id"] for o in definition["options"]}
            expected[definition["id"]] = str(options[fold(str(value))])
        elif isinstance(value, bool):
            expected[definition["id"]] = "true" if value else "false"
        else:
            expected[definition["id"]] = str(value).rstrip()
    return expected


def _entries(desired: DesiredState) -> Iterator[tuple[str, str, dict[str, Any]]]:
    manifest = desired.manifest
    for company in manifest.companies:
        yield "companies", company.name, dict(company.custom_fields or {})
    for user in manifest.users:
        yield "users", user.username, dict(user.custom_fields or {})
    for asset in manifest.assets:
        yield "assets", asset.serial_number, dict(asset.custom_fields or {})


def test_every_custom_field_value_is_set_through_the_catalogue_s_definitions(
    desired: DesiredState, bootstrap: tuple[SandboxState, Plan]
) -> None:
    state, result = bootstrap
    for kind, key, values in _entries(desired):
        change = changes_of(result, kind)[fold(key)]
        sent = _custom_field_values(change, CUSTOM_FIELD_CALLS[kind])
        assert sent == _expected_values(state, kind, values), (kind, key)


def test_planning_writes_nothing(bootstrap: tuple[SandboxState, Plan]) -> None:
    state = bootstrap[0]
    for table in ("companies", "departments", "categories", "assets", "ws_employees"):
        assert state.store.rows(table) == [], table
    assert [u["username"] for u in state.store.rows("users")] == ["admin"]
    assert all(r["enabled"] for r in state.store.rows("rules"))


def test_without_section_ids_no_category_can_be_placed(desired: DesiredState) -> None:
    # Why settings.section_ids exists: the sections hold no category yet, so the API
    # cannot show them, and every category to create is an error that says what to do.
    settings = desired.settings.model_copy(update={"section_ids": {}})
    assert isinstance(settings, Settings)
    bare = dataclasses.replace(
        desired, manifest=desired.manifest.model_copy(update={"settings": settings})
    )
    state, credentials = fresh_catalogue()
    result = plan_against(state, credentials, bare)
    placed = {address("categories", c.name) for c in desired.manifest.categories}
    problems = [d for d in result.errors if d.address in placed]
    assert sorted(d.address or "" for d in problems) == sorted(placed)
    for problem in problems:
        assert "settings.section_ids" in (problem.remedy or ""), problem
    assert not any(c.kind == "categories" for c in result.changes)
