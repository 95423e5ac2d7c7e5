"""API calls a `plan` makes, next to the least the API allows.

The least is one call per list page plus one per object whose manifest entry needs a
per-object read (custom field values of companies and users that exist live, the full
record of each user that will get an UpdateUser, the technicians of each managed
category, each automation rule), plus the one `Authorization`. The two must be equal.

Measured for `examples/acme` against its built-in seed, and for a generated tenant of
2,000 users, 300 companies and 3,000 assets (10% of each changed). The sandbox runs
in-process with rate limits off; the calls are counted from its request log.

    python benchmarks/plan_calls.py
"""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import httpx

from reconciler.clients import Secret
from reconciler.clients.connection import (
    Connection,
    HelpdeskConnection,
    RateSettings,
    WorkspaceConnection,
)
from reconciler.manifest.desired import DesiredState
from reconciler.manifest.document import Manifest
from reconciler.manifest.loader import load_manifests
from reconciler.plans import Plan
from reconciler.sandbox import records
from reconciler.sandbox.app import create_app
from reconciler.sandbox.config import SandboxConfig, seed_path
from reconciler.sandbox.seed import initialise
from reconciler.sandbox.state import SandboxState
from reconciler.sandbox.store import Store
from reconciler.session.workflow import read_and_plan

ROOT = Path(__file__).resolve().parents[1]
USERS_PAGE, ASSETS_PAGE = 500, 50


def connection(state: SandboxState) -> tuple[Connection, httpx.ASGITransport]:
    creds = initialise_credentials(state)
    transport = httpx.ASGITransport(app=create_app(state), client=("127.0.0.1", 40000))
    conn = Connection(
        HelpdeskConnection("http://sandbox/helpdesk", token=Secret(creds[0])),
        WorkspaceConnection("http://sandbox/workspace", Secret(creds[1])),
        RateSettings(0, 0),
    )
    return conn, transport


def initialise_credentials(state: SandboxState) -> tuple[str, str]:
    admin = next(u for u in state.store.rows("users") if u["is_admin"])
    key = state.store.rows("ws_api_keys")[0]["key"]
    return admin["token"], key


def minimal_calls(desired: DesiredState, state: SandboxState, plan: Plan) -> dict[str, int]:
    """The least the API allows for this manifest set and this live state."""
    m = desired.manifest
    store = state.store
    live_companies = {c["name"].casefold() for c in store.rows("companies")}
    live_users = {u["username"].casefold() for u in store.rows("users")}
    live_categories = {c["name"].casefold() for c in store.rows("categories")}
    usages = sum(
        bool(any(e.custom_fields for e in entries)) for entries in (m.companies, m.users, m.assets)
    )
    updated_users = sum(
        1
        for c in plan.changes
        if c.kind == "users"
        and c.action.value != "create"
        and any(o.path == "/api/UpdateUser" for o in c.operations)
    )
    reads_users = bool(m.users or m.tech_permissions or any(a.assigned_users for a in m.assets))
    counts = {
        "Authorization": 1,
        "Companies": int(bool(m.companies) or any(a.company for a in m.assets)),
        "Departments": int(bool(m.departments) or bool(m.users)),
        "categories": int(bool(m.categories) or bool(m.tech_permissions)),
        "CustomFields": usages,
        "Users pages": len(store.rows("users")) // USERS_PAGE + 1 if reads_users else 0,
        "Assets pages": len(store.rows("assets")) // ASSETS_PAGE + 1 if m.assets else 0,
        "CompanyCustomFields": sum(
            1 for c in m.companies if c.custom_fields and c.name.casefold() in live_companies
        ),
        "UserCustomFields": sum(
            1 for u in m.users if u.custom_fields and u.username.casefold() in live_users
        ),
        "User (full record for UpdateUser)": updated_users,
        "TechsForCategory": sum(
            1 for t in m.tech_permissions if t.category.casefold() in live_categories
        ),
        "Rule": len(m.automation_rules),
        "employees": int(bool(m.workspace and m.workspace.employees)),
    }
    if m.assets and any("enabled" in a.model_fields_set for a in m.assets):
        enabled = sum(1 for a in store.rows("assets") if not a["disabled"])
        counts["Assets pages (enabled only)"] = enabled // ASSETS_PAGE + 1
    return counts


def measure(label: str, desired: DesiredState, state: SandboxState) -> None:
    conn, transport = connection(state)
    state.requests.clear()
    started = time.perf_counter()
    outcome = asyncio.run(read_and_plan(desired, conn, transport=transport))
    elapsed = time.perf_counter() - started
    made = len(state.requests)
    least = minimal_calls(desired, state, outcome.plan)
    summary = outcome.plan.summary
    print(f"\n{label}: {sum(summary.values())} changes, {elapsed:.2f} s in-process")
    for name, count in least.items():
        if count:
            print(f"  {name:36} {count:6d}")
    total = sum(least.values())
    verdict = "equal" if made == total else "NOT EQUAL"
    print(f"  {'calls made':36} {made:6d}")
    print(f"  {'least the API allows':36} {total:6d}   -> {verdict}")


def acme() -> None:
    state = SandboxState(Store(None), SandboxConfig(rate_limit=0, search_rate_limit=0))
    initialise(state, seed_path("acme"))
    desired = load_manifests([ROOT / "examples" / "acme"], env={})
    measure("examples/acme", desired, state)


def generated(users: int = 2000, companies: int = 300, assets: int = 3000) -> None:
    state = SandboxState(Store(None), SandboxConfig(rate_limit=0, search_rate_limit=0))
    initialise(state, seed_path("empty"))
    store = state.store
    with store.batch():
        tier = store.insert("custom_fields", records.custom_field("Tier", type=1, usage_type=4))
        emp = store.insert(
            "custom_fields", records.custom_field("Employee ID", type=1, usage_type=3)
        )
        dept_ids = [
            store.insert("departments", records.named(f"Dept {d}"))["id"] for d in range(10)
        ]
        company_ids = []
        for c in range(companies):
            rec = records.company(f"Company {c:04d}", email_domain=f"c{c}.example.com", notes="n")
            rec["custom"] = {str(tier["id"]): f"T{c % 3}"}
            company_ids.append(store.insert("companies", rec)["id"])
        user_ids = []
        for u in range(users):
            rec = records.user(
                f"user{u:05d}",
                f"user{u:05d}@example.com",
                first_name="U",
                last_name=f"{u}",
                company_id=company_ids[u % companies],
                department_id=dept_ids[u % 10],
            )
            rec["custom"] = {str(emp["id"]): f"E-{u}"}
            user_ids.append(store.insert("users", rec)["id"])
        maker = store.insert("manufacturers", records.named("Lenovo"))["id"]
        kind = store.insert("asset_types", records.named("Laptop"))["id"]
        seller = store.insert("suppliers", records.named("CDW"))["id"]
        for a in range(assets):
            rec = records.asset(
                model_name="X1",
                manufacturer_id=maker,
                supplier_id=seller,
                type_id=kind,
                serial_number=f"SN-{a:06d}",
                location="HQ",
                company_id=company_ids[a % companies],
            )
            rec["assigned_user_ids"] = [user_ids[a % users]]
            store.insert("assets", rec)

    def changed(i: int) -> bool:
        return i % 10 == 0  # one object in ten differs from live

    manifest = Manifest.model_validate(
        {
            "companies": [
                {
                    "name": f"Company {c:04d}",
                    "email_domains": [f"c{c}.example.com"],
                    "notes": "new" if changed(c) else "n",
                    "custom_fields": {"Tier": f"T{c % 3}"},
                }
                for c in range(companies)
            ],
            "departments": [{"name": f"Dept {d}"} for d in range(10)],
            "users": [
                {
                    "username": f"user{u:05d}",
                    "email": f"user{u:05d}@example.com",
                    "first_name": "U",
                    "last_name": f"{u}" + ("x" if changed(u) else ""),
                    "company": f"Company {u % companies:04d}",
                    "department": f"Dept {u % 10}",
                    "custom_fields": {"Employee ID": f"E-{u}"},
                }
                for u in range(users)
            ],
            "assets": [
                {
                    "serial_number": f"SN-{a:06d}",
                    "model_name": "X1",
                    "manufacturer": "Lenovo",
                    "type": "Laptop",
                    "supplier": "CDW",
                    "location": "HQ2" if changed(a) else "HQ",
                    "company": f"Company {a % companies:04d}",
                    "assigned_users": [f"user{a % users:05d}"],
                }
                for a in range(assets)
            ],
        }
    )
    measure(
        f"generated tenant ({users} users, {companies} companies, {assets} assets)",
        DesiredState.from_manifest(manifest),
        state,
    )


def main() -> None:
    acme()
    generated()


if __name__ == "__main__":
    main()
