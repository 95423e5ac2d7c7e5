"""The round trip on generated live states: random companies (domains, notes, custom
field values of every type), departments, categories in sections (a name may repeat in
another section) with technicians, users (names, departments, companies, roles, disabled),
assets (texts, quantities, companies, assignments, enabled, values, sometimes no serial)
and workspace employees, written straight into a sandbox's store with the constructors
of `reconciler/sandbox/records.py`, valid by the sandbox's rules. Export, then plan:
nothing to change, no error, no warning."""

from __future__ import annotations

import secrets
from dataclasses import dataclass, field
from pathlib import Path
from tempfile import TemporaryDirectory
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from reconciler.export.selection import Selection
from reconciler.resources.base import norm_key
from reconciler.sandbox import records
from reconciler.sandbox.seed import Credentials, initialise
from reconciler.sandbox.state import SandboxState
from tests.export.sandbox import describe, new_state, round_trip

TYPES = records.FIELD_TYPES  # text, date, dropdown, checkbox, multiline
USAGES = ("companies", "users", "assets")

# Free text as people type it (and paste it): any printable character, line breaks,
# characters YAML treats specially, and `${`, which the manifest loader substitutes.
SPECIAL = "${}\n\t #:'\"-?|>&*!%@`[],.+~"
texts = st.text(
    alphabet=st.one_of(st.sampled_from(SPECIAL), st.characters(blacklist_categories=("Cs", "Cc"))),
    max_size=20,
)
# Names as the helpdesk keeps them: stripped, never empty.
names = st.from_regex(r"[A-Za-z0-9][A-Za-z0-9 .&'-]{0,10}[A-Za-z0-9]", fullmatch=True)
dates = st.dates().map(lambda d: d.isoformat())


@dataclass
class Tenant:
    """What a generated live state holds: records by table, before insertion."""

    rows: dict[str, list[tuple[dict[str, Any], int | None]]] = field(default_factory=dict)

    def add(self, table: str, record: dict[str, Any], rid: int | None = None) -> None:
        self.rows.setdefault(table, []).append((record, rid))


def unique(strategy: st.SearchStrategy[str], max_size: int) -> st.SearchStrategy[list[str]]:
    return st.lists(strategy, max_size=max_size, unique_by=norm_key)


@st.composite
def custom_values(draw: st.DrawFn, fields: list[dict[str, Any]]) -> dict[str, str]:
    stored: dict[str, str] = {}
    for definition in fields:
        if not draw(st.booleans()):
            continue
        kind = definition["type"]
        if kind == TYPES["dropdown"]:
            value = str(draw(st.sampled_from(definition["options"]))["id"])
        elif kind == TYPES["date"]:
            value = draw(dates)
        elif kind == TYPES["checkbox"]:
            value = draw(st.sampled_from(["true", "false"]))
        else:
            value = draw(texts)
        stored[str(definition["id"])] = value
    return stored


@st.composite
def tenants(draw: st.DrawFn) -> Tenant:
    tenant = Tenant()
    fields: dict[str, list[dict[str, Any]]] = {}
    field_id = option_id = 0
    for usage in USAGES:
        fields[usage] = []
        for type_name, type_id in TYPES.items():
            field_id += 1
            options = []
            if type_name == "dropdown":
                for option in draw(unique(names, 3).filter(bool)):
                    option_id += 1
                    options.append({"id": option_id, "name": option})
            definition = records.custom_field(
                f"{usage} {type_name}",
                type=type_id,
                usage_type=records.USAGE_TYPES[usage],
                options=options,
            )
            tenant.add("custom_fields", definition, field_id)
            fields[usage].append({**definition, "id": field_id})
    companies = draw(unique(names, 4))
    for name in companies:
        domains = draw(st.lists(st.from_regex(r"[a-z]{1,8}\.(com|io)", fullmatch=True), max_size=3))
        company = records.company(
            name, email_domain=";".join(domains) or None, notes=draw(st.none() | texts)
        )
        company["custom"] = draw(custom_values(fields["companies"]))
        tenant.add("companies", company)
    departments = draw(unique(names, 3))
    for name in departments:
        tenant.add("departments", records.named(name))
    sections = draw(unique(names, 2))
    for name in sections:
        tenant.add("sections", records.named(name))
    category_names = draw(unique(names, 3))
    categories: list[tuple[str, int | None]] = []
    for name in category_names:
        # A name may sit in several sections (unique within one).
        homes = draw(
            st.lists(
                st.sampled_from([None, *range(1, len(sections) + 1)]),
                min_size=1,
                max_size=2,
                unique=True,
            )
        )
        for section_id in homes:
            categories.append((name, section_id))
            tenant.add("categories", records.category(name, section_id=section_id))
    usernames = draw(unique(st.from_regex(r"[a-z][a-z0-9._-]{0,8}", fullmatch=True), 5))
    usernames = [u for u in usernames if u != "admin"]
    for index, username in enumerate(usernames):
        role = draw(st.sampled_from(["user", "technician", "admin"]))
        user = records.user(
            username,
            # Not the username: `ia.@` is no e-mail address, and manifests require one.
            f"user{index}@{draw(st.sampled_from(['acme.com', 'example.org']))}",
            role=role,
            first_name=draw(texts),
            last_name=draw(texts),
            phone=draw(st.sampled_from(["", "+4930123456", "0012", "555 0100"])),
            location=draw(texts),
            notes=draw(texts),
            department_id=draw(st.sampled_from([None, *range(1, len(departments) + 1)])),
            company_id=draw(st.sampled_from([None, *range(1, len(companies) + 1)])),
            disabled=draw(st.booleans()),
        )
        user["custom"] = draw(custom_values(fields["users"]))
        tenant.add("users", user, index + 2)  # 1 is the administrator
        for category_id in draw(st.sets(st.integers(1, len(categories)))) if categories else ():
            tenant.add("tech_permissions", {"user_id": index + 2, "category_id": category_id})
    for table in ("manufacturers", "asset_types", "suppliers"):
        tenant.add(table, records.named(draw(names)))
    serials = draw(unique(st.from_regex(r"[A-Z0-9][A-Z0-9-]{2,10}", fullmatch=True), 4))
    for serial in [*serials, *draw(st.lists(st.none(), max_size=1))]:
        asset = records.asset(
            model_name=draw(names),
            manufacturer_id=1,
            supplier_id=1,
            type_id=1,
            serial_number=serial,
            location=draw(st.none() | texts),
            comments=draw(st.none() | texts),
            quantity=draw(st.integers(0, 5)),
            company_id=draw(st.sampled_from([None, *range(1, len(companies) + 1)])),
            disabled=draw(st.booleans()),
        )
        user_ids = range(2, len(usernames) + 2)
        asset["assigned_user_ids"] = (
            sorted(draw(st.sets(st.sampled_from(user_ids)))) if usernames else []
        )
        asset["custom"] = draw(custom_values(fields["assets"]))
        tenant.add("assets", asset)
    emails = draw(unique(st.from_regex(r"[a-z]{1,8}@(acme\.com|globex\.io)", fullmatch=True), 4))
    for email in emails:
        employee = {
            "email": email,
            "firstName": draw(names),
            "lastName": draw(names),
            "department": draw(st.none() | st.sampled_from(departments or ["IT"])),
            "jobTitle": draw(st.none() | texts),
            "location": draw(st.none() | texts),
            "phone": draw(st.none() | st.sampled_from(["+4930123456", "0012"])),
            "managerEmail": draw(st.none() | st.sampled_from(emails)),
            "startDate": draw(st.none() | dates),
            "active": draw(st.booleans()),
        }
        tenant.add("ws_employees", {"public_id": secrets.token_hex(6), "fields": employee})
    return tenant


def live(tenant: Tenant) -> tuple[SandboxState, Credentials]:
    state = new_state()
    credentials = initialise(state, None)  # the administrator (id 1) and a workspace key
    with state.store.batch():
        for table, rows in tenant.rows.items():
            for record, rid in rows:
                state.store.insert(table, record, rid)
    return state, credentials


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tenants(), st.booleans())
def test_export_then_plan_is_empty_for_generated_live_states(
    tenant: Tenant, include_empty: bool
) -> None:
    state, credentials = live(tenant)
    with TemporaryDirectory() as directory:
        trip = round_trip(
            state, credentials, Path(directory), Selection.build(), include_empty=include_empty
        )
    assert describe(trip.plan) == []
    manifest = trip.desired.manifest
    assert len(manifest.users) == len(state.store.rows("users"))
    assert len(manifest.companies) == len(state.store.rows("companies"))
    with_serial = [a for a in state.store.rows("assets") if a["serial_number"]]
    assert len(manifest.assets) == len(with_serial)
