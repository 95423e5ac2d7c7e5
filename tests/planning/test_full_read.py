"""The readers' two modes: what the manifests' entries need (plan) and everything of a
kind (`FullRead`: export, unmanaged objects), and what a plan resolves across kinds."""

from __future__ import annotations

import asyncio
from typing import Any

from reconciler.kinds.companies import Company
from reconciler.kinds.register import RESOURCES
from reconciler.kinds.table import KIND_NAMES, KINDS, normalise_key
from reconciler.kinds.users import User
from reconciler.live import FullRead, LiveState, read_live
from reconciler.manifest.desired import DesiredState
from reconciler.manifest.document import Manifest
from reconciler.manifest.models import Kind, Settings
from reconciler.planning.order import KIND_ORDER
from reconciler.plans import Ref
from reconciler.resources.base import PlanContext
from tests.planning.fakes import SnapshotClient

HELPDESK: dict[str, Any] = {
    "Companies": [
        {"CompanyID": 1, "Name": "Acme Corp", "EmailDomain": "acme.com"},
        {"CompanyID": 2, "Name": "Globex"},
    ],
    "CustomFields?type=4": [{"FieldID": 9, "FieldName": "Tier", "Type": 1, "UsageType": 4}],
    "CustomFields?type=3": [],  # no user fields: no user values are read
    "CompanyCustomFields?id=1": [{"FieldID": 9, "Value": "Gold"}],
    "CompanyCustomFields?id=2": [],
    "Departments": [{"DepartmentID": 5, "Name": "IT"}],
    "Users": [
        {"UserID": 10, "Username": "alice", "Email": "a@acme.com", "DepartmentID": 5},
        {"UserID": 11, "Username": "bob", "Email": "b@acme.com", "DepartmentID": 77},
    ],
    "categories": [
        {"CategoryID": 3, "Name": "Hardware", "SectionID": 1, "Section": "IT"},
        {"CategoryID": 4, "Name": "Software", "SectionID": 1, "Section": "IT"},
    ],
    "TechsForCategory?id=3": [{"UserID": 10, "Username": "alice"}],
    "TechsForCategory?id=4": [],
    "Rule/101": "<AutomationRule><ID>101</ID><Name>Escalate</Name><Enabled>true</Enabled>"
    "</AutomationRule>",
}
EMPTY = DesiredState.from_manifest(Manifest())


def read(desired: DesiredState, full: FullRead | None = None) -> tuple[LiveState, list[str]]:
    client = SnapshotClient(HELPDESK)
    live = asyncio.run(read_live(desired, RESOURCES, helpdesk=client, full=full))
    return live, client.reads


def test_every_list_of_kinds_comes_from_the_table() -> None:
    assert [row.kind for row in KINDS] == list(Kind)
    assert KIND_ORDER == KIND_NAMES
    assert [r.kind for r in RESOURCES] == ["custom_fields", *KIND_NAMES]
    assert normalise_key("assets", "  sn-0001 ") == normalise_key("assets", "SN-0001")
    assert normalise_key("automation_rules", " 0101") == "101"
    assert normalise_key("workspace.employees", "A@X.com ") == "a@x.com"


def test_a_plan_reads_only_what_its_entries_need_and_gives_no_keys() -> None:
    desired = DesiredState.from_manifest(Manifest(companies=[Company(name="acme corp")]))
    live, reads = read(desired)
    assert reads == ["Companies"]
    assert live.keys("companies") is None  # not read in full


def test_a_full_read_reads_every_object_with_its_details() -> None:
    full = FullRead(frozenset({"companies", "users", "tech_permissions"}))
    live, reads = read(EMPTY, full)
    assert live.keys("companies") == {"acme corp", "globex"}
    assert live.keys("users") == {"alice", "bob"}
    assert live.keys("tech_permissions") == {"hardware"}  # Software has no technicians
    assert live.keys("departments") is None  # read for the users' names, not in full
    assert {"CompanyCustomFields?id=1", "CompanyCustomFields?id=2"} <= set(reads)
    assert "TechsForCategory?id=4" in reads
    users = live.kinds["users"]
    assert [u.department for u in users.items] == ["IT", None]  # type: ignore[attr-defined]
    assert users.items[1].department_id == 77  # type: ignore[attr-defined]


def test_a_full_read_of_permissions_reads_the_categories_entries_name_too_each_once() -> None:
    desired = DesiredState.from_manifest(
        Manifest.model_validate(
            {"tech_permissions": [{"category": "Hardware", "technicians": ["alice"]}]}
        )
    )
    live, reads = read(desired, FullRead(frozenset({"tech_permissions"})))
    assert live.keys("tech_permissions") == {"hardware"}
    assert sorted(r for r in reads if r.startswith("TechsForCategory")) == [
        "TechsForCategory?id=3",
        "TechsForCategory?id=4",
    ]


def test_a_full_read_reads_details_only_of_the_objects_wanted() -> None:
    full = FullRead(frozenset({"companies"}), wants=lambda kind, key: key == "Globex")
    _, reads = read(EMPTY, full)
    assert "CompanyCustomFields?id=2" in reads
    assert "CompanyCustomFields?id=1" not in reads


def test_a_full_read_of_employees_gives_their_keys_as_compared() -> None:
    """E-mail keys without regard to case; another key as written (`E-2` is not `e-2`)."""
    employees = [{"id": 1, "email": "Ann@X.com", "no": "E-2"}, {"id": 2, "email": "b@x.com"}]
    for key, keys in (("email", {"ann@x.com", "b@x.com"}), ("no", {"E-2"})):
        desired = DesiredState.from_manifest(Manifest(settings=Settings(employee_key=key)))
        client = SnapshotClient({"employees": employees})
        full = FullRead(frozenset({"workspace.employees"}))
        live = asyncio.run(read_live(desired, RESOURCES, workspace=client, full=full))
        assert live.keys("workspace.employees") == keys


def test_a_full_read_of_categories_gives_one_key_per_name() -> None:
    """Names as compared (case and white space ignored); a name in two sections is one key,
    as a manifest entry names it."""
    categories = [
        {"CategoryID": 3, "Name": "Hardware", "SectionID": 1, "Section": "IT"},
        {"CategoryID": 5, "Name": "hardware ", "SectionID": 2, "Section": "Facilities"},
        {"CategoryID": 4, "Name": "Remote  Access"},
    ]
    client = SnapshotClient({"categories": categories})
    full = FullRead(frozenset({"categories"}))
    live = asyncio.run(read_live(EMPTY, RESOURCES, helpdesk=client, full=full))
    assert live.keys("categories") == {"hardware", "remote access"}


def test_a_full_read_of_departments_gives_their_names_as_compared() -> None:
    client = SnapshotClient({"Departments": [{"DepartmentID": 5, "Name": " Field  Ops"}]})
    full = FullRead(frozenset({"departments"}))
    live = asyncio.run(read_live(EMPTY, RESOURCES, helpdesk=client, full=full))
    assert live.keys("departments") == {"field ops"}


def test_rules_are_read_by_the_ids_named() -> None:
    full = FullRead(frozenset({"automation_rules"}), named={"automation_rules": ("101",)})
    live, _ = read(EMPTY, full)
    assert live.keys("automation_rules") == {"101"}


def test_resolve_gives_a_live_id_a_planned_create_or_none() -> None:
    desired = DesiredState.from_manifest(
        Manifest(companies=[Company(name="Initech")], users=[User(username="carol")])
    )
    live, _ = read(desired, FullRead(frozenset({"companies"})))
    ctx = PlanContext(desired, live.kinds, frozenset())
    ctx.will_create("companies", "Initech")
    assert ctx.resolve("companies", " ACME corp") == 1
    assert ctx.resolve("companies", "initech") == Ref('companies["Initech"]')
    assert ctx.resolve("companies", "Umbrella") is None
    assert ctx.known_names("companies") == ["Acme Corp", "Globex", "Initech"]
