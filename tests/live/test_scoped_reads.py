"""Reads that grow with `settings.scope` (DESIGN §9), against the sandbox in process: the
users' reader lists through `listMode`, `companyId` (one read per company) and
`departmentId`; the assets' reader through `assignedToCompanyId`; the patterns filter what
was listed; a company the scope names that is not live is not read, and the plan warns."""

from __future__ import annotations

import asyncio
from typing import Any

from reconciler.kinds.register import RESOURCES
from reconciler.live import LiveState, read_live
from reconciler.manifest.loader import load_manifest_text
from reconciler.planning.plan import plan
from reconciler.sandbox import records
from reconciler.sandbox.state import SandboxState
from tests.clients.conftest import endpoint_calls, helpdesk_client, make_state, no_limits


def tenant() -> SandboxState:
    """admin, tina and ursula (no company), and per company (Acme, Other) two users, one
    of them a technician, and two assets."""
    state = make_state(no_limits())
    store = state.store
    kinds = {table: store.insert(table, records.named("x"))["id"] for table in
             ("manufacturers", "suppliers", "asset_types")}  # fmt: skip
    it = store.insert("departments", records.named("IT"))["id"]
    for name in ("Acme", "Other"):
        company = store.insert("companies", records.company(name))["id"]
        low = name.lower()
        for user, role in ((f"{low}-staff", "technician"), (f"{low}-customer", "user")):
            email = f"{user}@{low}.com"
            store.insert(
                "users",
                records.user(user, email, role=role, company_id=company, department_id=it),
            )
        for serial in (f"{name[:2].upper()}-1", f"PF-{low}"):
            store.insert(
                "assets",
                records.asset(
                    model_name="Laptop",
                    manufacturer_id=kinds["manufacturers"],
                    supplier_id=kinds["suppliers"],
                    type_id=kinds["asset_types"],
                    serial_number=serial,
                    company_id=company,
                ),
            )
    return state


def read(state: SandboxState, manifest: str) -> tuple[Any, LiveState]:
    desired = load_manifest_text(manifest, "m.yaml")

    async def run() -> LiveState:
        async with helpdesk_client(state) as helpdesk:
            return await read_live(desired, RESOURCES, helpdesk=helpdesk, workspace=None)

    return desired, asyncio.run(run())


def usernames(live: LiveState) -> set[str]:
    return {u.username for u in live.kinds["users"].by_key.values()}


def serials(live: LiveState) -> set[str]:
    return set(live.kinds["assets"].by_key)


def test_without_a_scope_the_users_are_read_whole() -> None:
    state = tenant()
    _, live = read(state, "users: [{username: acme-staff}]\n")
    assert usernames(live) == {
        "admin", "tina", "ursula", "acme-staff", "acme-customer", "other-staff", "other-customer"
    }  # fmt: skip
    assert len(endpoint_calls(state, "Users")) == 1


def test_the_users_scope_reads_one_company_by_its_id_and_list_mode() -> None:
    state = tenant()
    manifest = (
        "settings: {scope: {users: {list_mode: techs, companies: [acme]}}}\n"
        "users: [{username: acme-staff, company: Acme}]\n"
    )
    _, live = read(state, manifest)
    assert usernames(live) == {"acme-staff"}
    (call,) = endpoint_calls(state, "Users")
    assert call["query"]["listMode"] == "techs"
    assert call["query"]["companyId"] == str(live.kinds["companies"].id_of("Acme"))


def test_one_users_read_per_company_and_department_pair() -> None:
    state = tenant()
    manifest = (
        "settings: {scope: {users: {companies: [Acme, Other], departments: [IT]}}}\n"
        "users: [{username: acme-staff, company: Acme, department: IT}]\n"
    )
    _, live = read(state, manifest)
    assert usernames(live) == {"acme-staff", "acme-customer", "other-staff", "other-customer"}
    calls = endpoint_calls(state, "Users")
    assert len(calls) == 2 and all("departmentId" in c["query"] for c in calls)


def test_the_users_patterns_filter_after_the_read_on_username_and_email() -> None:
    state = tenant()
    manifest = (
        "settings: {scope: {users: {include: ['*@acme.com', 'tina'], exclude: ['*-customer']}}}\n"
        "users: [{username: acme-staff}]\n"
    )
    _, live = read(state, manifest)
    assert usernames(live) == {"acme-staff", "tina"}
    assert len(live.kinds["users"]) == 2  # what the brake and coverage count


def test_the_assets_scope_reads_per_company_and_filters_serials() -> None:
    state = tenant()
    manifest = (
        "settings: {scope: {assets: {companies: [Other], include: ['PF*']}}}\n"
        "assets: [{serial_number: PF-other, company: Other}]\n"
    )
    _, live = read(state, manifest)
    assert serials(live) == {"pf-other"}
    calls = endpoint_calls(state, "Assets")
    other = str(live.kinds["companies"].id_of("Other"))
    assert calls and all(c["query"]["assignedToCompanyId"] == other for c in calls)


def test_a_scope_company_that_is_not_live_is_not_read_and_is_warned_of() -> None:
    state = tenant()
    manifest = (
        "settings: {scope: {users: {companies: [Acme, Initech]}}}\n"
        "users: [{username: acme-staff, company: Acme}]\n"
    )
    desired, live = read(state, manifest)
    assert len(endpoint_calls(state, "Users")) == 1
    warnings = [w.message for w in plan(desired, live, resources=RESOURCES).warnings]
    assert (
        "settings.scope.users: company 'Initech' does not exist: nothing can match it yet"
        in warnings
    )


def test_companies_outside_the_pattern_scope_are_not_live_yet_name_a_users_company() -> None:
    state = tenant()
    manifest = (
        "settings: {scope: {companies: {include: ['Acme*']}, departments: {exclude: [IT]}}}\n"
        "companies: [{name: Acme}]\n"
        "users: [{username: other-staff, company: Other, department: IT}]\n"
    )
    desired, live = read(state, manifest)
    companies = live.kinds["companies"]
    assert companies.keys() == {"acme"} and len(companies) == 1
    assert companies.id_of("Other") is not None  # a reference may still name it
    assert live.kinds["departments"].keys() == frozenset()
    assert live.kinds["users"].get("other-staff").department == "IT"
    result = plan(desired, live, resources=RESOURCES)
    assert result.errors == () and result.changes == ()


def test_a_user_outside_the_scope_that_an_asset_names_is_read_by_username_alone() -> None:
    state = tenant()
    manifest = (
        "settings: {scope: {users: {companies: [Acme]}}}\n"
        "users: [{username: acme-staff, company: Acme}]\n"
        "assets: [{serial_number: PF-acme, assigned_users: [other-customer, nobody]}]\n"
    )
    desired, live = read(state, manifest)
    users = live.kinds["users"]
    assert usernames(live) == {"acme-staff", "acme-customer"}  # the scope alone
    assert users.id_of("other-customer") is not None and users.get("other-customer") is None
    assert len(endpoint_calls(state, "Users")) == 1
    asked = sorted(c["query"]["username"] for c in endpoint_calls(state, "UserByUsername"))
    assert asked == ["nobody", "other-customer"]
    result = plan(desired, live, resources=RESOURCES)
    (change,) = result.changes
    assert [o.params["userId"] for o in change.operations] == [users.id_of("other-customer")]
    assert any("nobody" in e.message for e in result.errors)  # unknown, as without a scope
