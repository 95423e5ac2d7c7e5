"""The example tenant (examples/acme/) and the built-in sandbox seeds (reconciler/sandbox/seeds/).

The example is the quick start: `reconciler plan examples/acme --sandbox` loads the acme
seed into a fresh sandbox and plans the manifests against it. So the manifests must load,
hold what issue 3 asks of a complete tenant, refer only to things that exist (in the
manifests or in the seed), and the seed must drift from them in exactly the documented
ways; the last test plans the example against the seeded sandbox, in-process.

The catalogue seed (acme-catalogue.yaml) is the same tenant on the day its helpdesk is set
up: only what the API cannot create, defined exactly as the acme seed defines it, so that
`apply examples/acme` can bootstrap it (test_bootstrap.py plans that).
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable, Mapping
from datetime import date
from pathlib import Path
from typing import Any

import httpx
import pytest
from pydantic import BaseModel
from ruamel.yaml import YAML

from reconciler.clients.auth import BasicAuth
from reconciler.clients.helpdesk import HelpdeskClient
from reconciler.clients.workspace import WorkspaceClient
from reconciler.kinds.register import RESOURCES
from reconciler.live import read_live
from reconciler.manifest.desired import DesiredState
from reconciler.manifest.document import Manifest, managed_fields
from reconciler.manifest.loader import load_manifests
from reconciler.manifest.models import Safety
from reconciler.planning.plan import plan
from reconciler.plans import Plan
from reconciler.sandbox import records
from reconciler.sandbox.app import create_app
from reconciler.sandbox.config import SandboxConfig
from reconciler.sandbox.seed import Credentials, initialise
from reconciler.sandbox.state import SandboxState
from reconciler.sandbox.store import Store
from reconciler.sandbox.workspace import EMPLOYEE_OPTIONAL, EMPLOYEE_REQUIRED

ROOT = Path(__file__).parents[2]
EXAMPLE = ROOT / "examples" / "acme"
SEEDS = ROOT / "reconciler" / "sandbox" / "seeds"
ACME_SEED = SEEDS / "acme.yaml"
EMPTY_SEED = SEEDS / "empty.yaml"
CATALOGUE_SEED = SEEDS / "acme-catalogue.yaml"
SCHEMA_COMMENT = "# yaml-language-server: $schema=../../schemas/manifest.schema.json"
MANIFEST_FILES = sorted(EXAMPLE.glob("*.yaml"))
FIELD_TYPES = {v: k for k, v in records.FIELD_TYPES.items()}  # 1 -> "text", ...

# How the seed (the helpdesk before apply) differs from the manifests, as the README and
# the seed's header say: `KIND/KEY: missing` or `KIND/KEY: FIELD`.
EXPECTED_DRIFT = {
    "companies/Globex Logistics: missing",
    "companies/Acme Robotics: email_domains",
    "companies/Acme Robotics: notes",
    "companies/Acme Field Services: custom_fields.Contract tier",
    "categories/Office Supplies: missing",
    "tech_permissions/Hardware: technicians",
    "tech_permissions/Network: technicians",
    "tech_permissions/Accounts & Access: technicians",
    "users/hana: missing",
    "users/george: missing",
    "users/carla: last_name",
    "users/dmitri: department",
    "users/dmitri: custom_fields.Cost centre",
    "users/ivan: disabled",
    "assets/C02FK3ZQMD6T: missing",
    "assets/9XK2L95: missing",
    "assets/22134520501234: missing",
    "assets/VNB3K12345: location",
    "assets/PF3HT7C9: assigned_users",
    "automation_rules/102: enabled",
    "workspace.employees/george.lin@globex-logistics.com: missing",
    "workspace.employees/tina.nguyen@acme.com: jobTitle",
}

# The quick start's plan: (action, kind, key), as `reconciler plan` lists it.
EXPECTED_PLAN = {
    ("create", "companies", "Globex Logistics"),
    ("update", "companies", "Acme Robotics"),
    ("update", "companies", "Acme Field Services"),
    ("create", "categories", "Office Supplies"),
    ("update", "tech_permissions", "Hardware"),
    ("update", "tech_permissions", "Network"),
    ("update", "tech_permissions", "Accounts & Access"),
    ("create", "users", "hana"),
    ("create", "users", "george"),
    ("update", "users", "carla"),
    ("update", "users", "dmitri"),
    ("disable", "users", "ivan"),
    ("create", "assets", "C02FK3ZQMD6T"),
    ("create", "assets", "9XK2L95"),
    ("create", "assets", "22134520501234"),
    ("update", "assets", "VNB3K12345"),
    ("update", "assets", "PF3HT7C9"),
    ("disable", "automation_rules", "102"),
    ("create", "workspace.employees", "george.lin@globex-logistics.com"),
    ("update", "workspace.employees", "tina.nguyen@acme.com"),
}


@pytest.fixture(scope="module")
def desired() -> DesiredState:
    return load_manifests([EXAMPLE], env={})


@pytest.fixture(scope="module")
def manifest(desired: DesiredState) -> Manifest:
    return desired.manifest


@pytest.fixture(scope="module")
def seeded() -> tuple[SandboxState, Credentials]:
    state = SandboxState(Store(None), SandboxConfig())
    return state, initialise(state, ACME_SEED)


@pytest.fixture(scope="module")
def catalogue() -> tuple[SandboxState, Credentials]:
    state = SandboxState(Store(None), SandboxConfig())
    return state, initialise(state, CATALOGUE_SEED)


@pytest.fixture(scope="module")
def seed_data() -> dict[str, Any]:
    data: dict[str, Any] = YAML(typ="safe").load(ACME_SEED.read_text(encoding="utf-8"))
    return data


def fold(text: str) -> str:
    return text.casefold()


# -- the manifests ---------------------------------------------------------------------


def test_the_example_is_split_by_kind() -> None:
    names = {p.name for p in MANIFEST_FILES}
    assert names == {
        "settings.yaml",
        "companies.yaml",
        "people.yaml",
        "categories.yaml",
        "assets.yaml",
        "rules.yaml",
        "workspace.yaml",
    }


@pytest.mark.parametrize("path", MANIFEST_FILES, ids=lambda p: p.name)
def test_each_file_starts_with_the_schema_comment_and_is_a_manifest(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    assert text.splitlines()[0] == SCHEMA_COMMENT
    Manifest.model_validate(YAML(typ="safe").load(text))


def test_the_tenant_is_complete(manifest: Manifest) -> None:
    assert len(manifest.companies) >= 3
    assert sum(1 for c in manifest.companies if c.custom_fields) >= 3
    assert len(manifest.departments) == 4
    assert len(manifest.categories) == 6
    assert len({c.section for c in manifest.categories}) == 2
    assert len(manifest.tech_permissions) >= 3
    assert len(manifest.users) == 12
    assert sum(1 for u in manifest.users if u.is_admin) == 1
    technicians = {t for p in manifest.tech_permissions for t in p.technicians}
    assert len(technicians) >= 3
    assert len(manifest.assets) == 25
    assert sum(1 for a in manifest.assets if a.assigned_users) >= 20
    assert sum(1 for a in manifest.assets if a.custom_fields) == 25
    assert [r.id for r in manifest.automation_rules] == [101, 102, 103]
    assert all(r.name for r in manifest.automation_rules)
    assert [r.enabled for r in manifest.automation_rules].count(False) == 1
    assert manifest.workspace is not None
    assert len(manifest.workspace.employees) == 6


def test_the_sandbox_administrator_is_not_managed(manifest: Manifest) -> None:
    # The plan must leave the login it runs with alone (and nothing is pruned anyway).
    assert "admin" not in {fold(u.username) for u in manifest.users}


def test_settings_are_safe_for_a_first_run(manifest: Manifest) -> None:
    assert manifest.settings is not None
    assert manifest.settings.prune == []
    assert manifest.settings.ignore_fields == {}
    assert manifest.settings.safety == Safety()
    assert manifest.settings.employee_key == "email"


def test_references_between_the_manifests_resolve(manifest: Manifest) -> None:
    companies = {fold(c.name) for c in manifest.companies}
    departments = {fold(d.name) for d in manifest.departments}
    usernames = {fold(u.username) for u in manifest.users}
    categories = {fold(c.name) for c in manifest.categories}
    for user in manifest.users:
        assert user.company is not None and fold(user.company) in companies, user.username
        assert user.department is not None and fold(user.department) in departments
    for permission in manifest.tech_permissions:
        assert fold(permission.category) in categories
        assert {fold(t) for t in permission.technicians} <= usernames
    for asset in manifest.assets:
        assert asset.company is not None and fold(asset.company) in companies
        assert {fold(u) for u in asset.assigned_users or []} <= usernames
    assert manifest.workspace is not None
    emails = {fold(u.email or "") for u in manifest.users}
    for employee in manifest.workspace.employees:
        assert fold(employee.fields["email"]) in emails
        # The sandbox refuses other employee fields with 422.
        assert set(employee.fields) <= {*EMPLOYEE_REQUIRED, *EMPLOYEE_OPTIONAL}


# -- custom fields against the seed's definitions ----------------------------------------


def seed_fields(state: SandboxState) -> dict[tuple[int, str], dict[str, Any]]:
    return {(f["usage_type"], fold(f["name"])): f for f in state.store.rows("custom_fields")}


def used_values(manifest: Manifest) -> Iterable[tuple[int, str, Any]]:
    """(usage type, field name, value) of every custom field value in the manifests."""
    owners: list[tuple[int, Iterable[Any]]] = [
        (records.USAGE_TYPES["companies"], manifest.companies),
        (records.USAGE_TYPES["users"], manifest.users),
        (records.USAGE_TYPES["assets"], manifest.assets),
    ]
    for usage, entries in owners:
        for entry in entries:
            for name, value in (entry.custom_fields or {}).items():
                yield usage, name, value


def test_every_custom_field_exists_in_the_seed_with_a_value_of_its_type(
    manifest: Manifest, seeded: tuple[SandboxState, Credentials]
) -> None:
    fields = seed_fields(seeded[0])
    expected_type = {"text": str, "multiline": str, "dropdown": str, "date": date, "checkbox": bool}
    for usage, name, value in used_values(manifest):
        definition = fields.get((usage, fold(name)))
        assert definition is not None, f"no {name!r} field for usage {usage} in the seed"
        assert isinstance(value, expected_type[FIELD_TYPES[definition["type"]]]), (name, value)


def test_every_field_type_is_used_for_companies_users_and_assets(
    manifest: Manifest, seeded: tuple[SandboxState, Credentials]
) -> None:
    fields = seed_fields(seeded[0])
    used: dict[int, set[str]] = {}
    for usage, name, _ in used_values(manifest):
        used.setdefault(usage, set()).add(FIELD_TYPES[fields[(usage, fold(name))]["type"]])
    every = set(records.FIELD_TYPES)
    assert used == {records.USAGE_TYPES[u]: every for u in ("companies", "users", "assets")}


def test_dropdown_options_match_the_ids_the_seed_gives(
    manifest: Manifest, seeded: tuple[SandboxState, Credentials]
) -> None:
    fields = seed_fields(seeded[0])
    assert manifest.settings is not None
    options = manifest.settings.custom_field_options
    configured = {
        (records.USAGE_TYPES[kind], fold(k)): v
        for kind in ("companies", "users", "assets")
        for k, v in options.of(kind).items()
    }
    used = set()
    for usage, name, value in used_values(manifest):
        definition = fields[(usage, fold(name))]
        if FIELD_TYPES[definition["type"]] != "dropdown":
            continue
        used.add((usage, fold(name)))
        found = {fold(o["name"]): o["id"] for o in definition["options"]}
        assert (usage, fold(name)) in configured, f"settings.custom_field_options lacks {name!r}"
        given = {fold(k): v for k, v in configured[(usage, fold(name))].items()}
        assert found[fold(value)] == given[fold(value)], (name, value)
    # Every configured field is a seed dropdown of its kind whose options have these ids.
    for (usage, name), given in configured.items():
        definition = fields[(usage, name)]
        assert FIELD_TYPES[definition["type"]] == "dropdown", name
        assert {o["name"]: o["id"] for o in definition["options"]} == given
    assert used == set(configured)


# -- the seeds ------------------------------------------------------------------------


def test_the_acme_seed_loads_with_the_printed_login(
    seeded: tuple[SandboxState, Credentials],
) -> None:
    state, credentials = seeded
    assert credentials.helpdesk_username == "admin"
    assert credentials.helpdesk_password
    admin = state.store.find("users", username="admin")
    assert admin is not None and admin["is_admin"] and not admin["disabled"]
    assert [k["key"] for k in state.store.rows("ws_api_keys")] == [credentials.workspace_api_key]
    assert len(state.store.rows("companies")) == 3
    assert len(state.store.rows("assets")) == 22


def test_the_empty_seed_has_one_administrator_and_one_key() -> None:
    state = SandboxState(Store(None), SandboxConfig())
    credentials = initialise(state, EMPTY_SEED)
    users = state.store.rows("users")
    assert [(u["username"], u["is_admin"]) for u in users] == [("admin", True)]
    assert credentials.helpdesk_username == "admin"
    assert [k["key"] for k in state.store.rows("ws_api_keys")] == [credentials.workspace_api_key]
    for table in ("companies", "assets", "categories", "custom_fields", "ws_employees"):
        assert state.store.rows(table) == [], table


def test_categories_to_create_go_into_sections_that_exist(
    manifest: Manifest, seed_data: dict[str, Any]
) -> None:
    # The API cannot create sections, nor move a category to another one.
    seed_sections = {fold(s) for s in seed_data["sections"]}
    seed_categories = {fold(c["name"]): c.get("section") for c in seed_data["categories"]}
    for category in manifest.categories:
        assert category.section is not None and fold(category.section) in seed_sections
        if fold(category.name) in seed_categories:
            assert seed_categories[fold(category.name)] == category.section


def section_ids(state: SandboxState) -> dict[str, int]:
    return {s["name"]: s["id"] for s in state.store.rows("sections")}


def test_section_ids_are_the_ids_both_seeds_give_the_manifests_sections(
    manifest: Manifest,
    seeded: tuple[SandboxState, Credentials],
    catalogue: tuple[SandboxState, Credentials],
) -> None:
    assert manifest.settings is not None
    configured = manifest.settings.section_ids
    assert configured == section_ids(seeded[0]) == section_ids(catalogue[0])
    assert {fold(n) for n in configured} == {fold(c.section or "") for c in manifest.categories}


def test_the_catalogue_seed_loads_with_one_administrator_and_one_key(
    catalogue: tuple[SandboxState, Credentials],
) -> None:
    state, credentials = catalogue
    assert credentials.helpdesk_username == "admin"
    assert credentials.helpdesk_password
    users = state.store.rows("users")
    assert [(u["username"], u["is_admin"], u["disabled"]) for u in users] == [
        ("admin", True, False)
    ]
    assert [k["key"] for k in state.store.rows("ws_api_keys")] == [credentials.workspace_api_key]


def test_the_catalogue_seed_holds_only_what_the_api_cannot_create(
    catalogue: tuple[SandboxState, Credentials],
) -> None:
    state = catalogue[0]
    filled = {table for table in state.store.tables if state.store.rows(table)}
    assert filled == {
        "users", "ws_api_keys",  # the login apply runs with
        "custom_fields", "sections", "rules",  # made in the admin panel only
    }  # fmt: skip


def test_the_catalogue_defines_exactly_the_fields_the_manifests_use_as_the_acme_seed_does(
    manifest: Manifest,
    seeded: tuple[SandboxState, Credentials],
    catalogue: tuple[SandboxState, Credentials],
) -> None:
    fields = seed_fields(catalogue[0])
    assert set(fields) == {(usage, fold(name)) for usage, name, _ in used_values(manifest)}
    acme = seed_fields(seeded[0])
    for found, definition in fields.items():
        # Same name, type, option ids, order, flags and id: a bootstrapped sandbox and the
        # quick start's one hold the same catalogue.
        assert definition == acme[found], found


def test_the_catalogue_rules_are_the_manifests_rules_as_the_acme_seed_has_them(
    manifest: Manifest,
    seeded: tuple[SandboxState, Credentials],
    catalogue: tuple[SandboxState, Credentials],
) -> None:
    rules = catalogue[0].store.rows("rules")
    assert [(r["id"], r["name"]) for r in rules] == [
        (r.id, r.name) for r in manifest.automation_rules
    ]
    assert rules == seeded[0].store.rows("rules")
    # All enabled, as in the acme seed: the plan disables 102, as the manifests ask.
    assert all(r["enabled"] for r in rules)


def _norm(value: Any) -> Any:
    if isinstance(value, date):
        return value.isoformat()
    if isinstance(value, str):
        return value.rstrip()
    if isinstance(value, list | tuple):
        return sorted(str(_norm(v)).casefold() for v in value)
    return value


def _seed_objects(seed: Mapping[str, Any]) -> dict[str, dict[str, dict[str, Any]]]:
    """The seed's objects in the manifests' vocabulary, by kind and folded key."""
    workspace = seed.get("workspace") or {}
    return {
        "companies": {fold(c["name"]): c for c in seed["companies"]},
        "categories": {fold(c["name"]): c for c in seed["categories"]},
        "tech_permissions": {
            fold(k): {"category": k, "technicians": v} for k, v in seed["tech_permissions"].items()
        },
        "users": {
            fold(u["username"]): {
                **u,
                "is_admin": u.get("role") == "admin",
                "disabled": bool(u.get("disabled")),
            }
            for u in seed["users"]
        },
        "assets": {
            fold(str(a["serial_number"])): {
                **a,
                "enabled": not a.get("disabled"),
                "quantity": a.get("quantity", 1),
                "assigned_users": a.get("assigned_users") or [],
            }
            for a in seed["assets"]
        },
        "automation_rules": {
            str(r["id"]): {**r, "enabled": r.get("enabled", True)} for r in seed["automation_rules"]
        },
        "workspace.employees": {
            fold(e["email"]): {"active": True, **e} for e in workspace.get("employees") or []
        },
        "departments": {fold(d): {"name": d} for d in seed["departments"]},
    }


def _drift(manifest: Manifest, seed: Mapping[str, Any]) -> set[str]:
    live = _seed_objects(seed)
    employees = manifest.workspace.employees if manifest.workspace else []
    kinds: dict[str, tuple[str, list[Any]]] = {
        "companies": ("name", list(manifest.companies)),
        "departments": ("name", list(manifest.departments)),
        "categories": ("name", list(manifest.categories)),
        "tech_permissions": ("category", list(manifest.tech_permissions)),
        "users": ("username", list(manifest.users)),
        "assets": ("serial_number", list(manifest.assets)),
        "automation_rules": ("id", list(manifest.automation_rules)),
        "workspace.employees": ("email", list(employees)),
    }
    found = set()
    for kind, (key_field, entries) in kinds.items():
        for entry in entries:
            wanted = _given(entry)
            key = str(wanted[key_field])
            current = live[kind].get(fold(key))
            if current is None:
                found.add(f"{kind}/{key}: missing")
                continue
            for name, value in wanted.items():
                if name == "custom_fields":
                    values = current.get("custom_fields") or {}
                    found |= {
                        f"{kind}/{key}: custom_fields.{field}"
                        for field, v in value.items()
                        if _norm(v) != _norm(values.get(field))
                    }
                elif _norm(value) != _norm(current.get(name)):
                    found.add(f"{kind}/{key}: {name}")
    return found


def _given(entry: BaseModel) -> dict[str, Any]:
    # Employees' open fields are attributes too (pydantic's extra="allow").
    return {name: getattr(entry, name) for name in managed_fields(entry)}


def test_the_seed_differs_from_the_manifests_exactly_as_documented(
    manifest: Manifest, seed_data: dict[str, Any]
) -> None:
    assert _drift(manifest, seed_data) == EXPECTED_DRIFT


# -- the quick start ------------------------------------------------------------------


async def _plan_against(
    state: SandboxState, credentials: Credentials, desired: DesiredState
) -> Plan:
    # In-process: the ASGI app is called directly, no socket is opened.
    transport = httpx.ASGITransport(app=create_app(state), client=("127.0.0.1", 50000))
    auth = BasicAuth(credentials.helpdesk_username, credentials.helpdesk_password)
    helpdesk = HelpdeskClient(
        "http://127.0.0.1/helpdesk", auth, read_only=True, transport=transport
    )
    workspace = WorkspaceClient(
        "http://127.0.0.1/workspace",
        credentials.workspace_api_key,
        read_only=True,
        transport=transport,
    )
    async with helpdesk, workspace:
        live = await read_live(desired, RESOURCES, helpdesk=helpdesk, workspace=workspace)
    return plan(desired, live, resources=RESOURCES)


def test_the_quick_start_plan_creates_updates_and_disables(desired: DesiredState) -> None:
    state = SandboxState(Store(None), SandboxConfig())
    credentials = initialise(state, ACME_SEED)
    result = asyncio.run(_plan_against(state, credentials, desired))
    assert not result.errors, [d.to_dict() for d in result.errors]
    assert not result.warnings, [d.to_dict() for d in result.warnings]
    planned = {(c.action.value, c.kind, c.key) for c in result.changes}
    assert planned == EXPECTED_PLAN
    assert result.summary == {"create": 8, "update": 10, "delete": 0, "enable": 0, "disable": 2}
