"""`PlanContext` (public: `reconciler.resources.PlanContext`) over a live state read from
an API snapshot: what a reference to another kind resolves to, the names offered as "did
you mean", and what each kind's live state counts and keys (the `LiveData` contract: the
safety brake counts `len`, `LiveState.keys` gives `keys()`)."""

from __future__ import annotations

import asyncio
from typing import Any

from reconciler.kinds.companies.reader import LiveCompanies
from reconciler.kinds.employees.reader import LiveEmployees
from reconciler.kinds.register import RESOURCES
from reconciler.live import read_live
from reconciler.manifest.desired import DesiredState
from reconciler.manifest.document import Manifest
from reconciler.plans import Ref
from reconciler.resources import PlanContext
from tests.planning.fakes import SnapshotClient

MANIFEST = {
    "departments": [{"name": "Finance"}],
    "categories": [{"name": "Printers", "section": "IT Support"}],
    "companies": [{"name": "Globex", "custom_fields": {"Tier": "Gold"}}],
    "users": [{"username": "amy", "custom_fields": {"Badge": "B-1"}}],
    "tech_permissions": [
        {"category": "Software", "technicians": ["Bob"]},
        {"category": "Hardware", "technicians": []},
    ],
}
USER = {"IsAdmin": False, "Disabled": False, "DepartmentID": None}
SNAPSHOT: dict[str, Any] = {
    "Departments": [
        {"DepartmentID": 1, "Name": "Finance"},
        {"DepartmentID": 2, "Name": "Human Resources"},
    ],
    "categories": [
        {"CategoryID": 4, "Name": "Software", "SectionID": 9, "Section": "IT Support"},
        {"CategoryID": 3, "Name": "Hardware", "SectionID": None, "Section": None},
    ],
    "Companies": [{"CompanyID": 5, "Name": "Initech"}],
    "CustomFields?type=4": [
        {"FieldID": 11, "FieldName": "Tier", "Type": 1, "UsageType": 4, "Mandatory": False},
    ],
    "CustomFields?type=3": [
        {"FieldID": 21, "FieldName": "Badge", "Type": 1, "UsageType": 3, "Mandatory": False},
        {"FieldID": 22, "FieldName": " Floor ", "Type": 1, "UsageType": 3, "Mandatory": False},
    ],
    "Users": [{"UserID": 6, "Username": "Bob", "Email": "bob@acme.com", **USER}],
    "TechsForCategory?id=4": [{"UserID": 6, "Username": "Bob"}, {"UserID": 7, "Username": "cy"}],
    "TechsForCategory?id=3": [],
}


def context() -> PlanContext:
    desired = DesiredState.from_manifest(Manifest.model_validate(MANIFEST))
    live = asyncio.run(
        read_live(desired, RESOURCES, helpdesk=SnapshotClient(SNAPSHOT), prune=frozenset())
    )
    return PlanContext(desired, live.kinds, frozenset())


def test_a_reference_resolves_to_the_live_id_then_to_what_the_plan_creates() -> None:
    ctx = context()
    assert ctx.resolve("companies", "  initech ") == 5
    assert ctx.resolve("users", "BOB") == 6
    assert ctx.resolve("companies", "Globex") is None
    ctx.will_create("companies", "Globex")
    assert ctx.resolve("companies", "globex") == Ref('companies["Globex"]')


def test_a_kind_whose_live_state_has_no_ids_by_name_resolves_only_to_creates() -> None:
    ctx = context()
    assert "departments" in ctx.live
    assert ctx.resolve("departments", "Finance") is None
    ctx.will_create("departments", "Legal")
    assert ctx.resolve("departments", "legal") == Ref('departments["Legal"]')
    assert ctx.resolve("assets", "SN-1") is None  # a kind this run did not read


def test_a_kinds_live_state_is_given_only_as_the_type_asked_for() -> None:
    # A kind's planner asks for its own reader's type: a live state of another type (an
    # embedding program's, say) is not taken for it.
    ctx = context()
    companies = ctx.live_of("companies", LiveCompanies)
    assert companies is ctx.live["companies"]
    assert ctx.live_of("companies", LiveEmployees) is None
    assert ctx.live_of("assets", LiveCompanies) is None  # not read


def test_the_names_offered_for_an_unknown_reference() -> None:
    ctx = context()
    assert ctx.live_names("departments") == ["Finance", "Human Resources"]
    assert ctx.live_names("categories") == ["Hardware", "Software"]  # by id
    assert ctx.live_names("companies") == ["Initech"]
    assert ctx.live_names("assets") == []
    assert ctx.known_names("companies") == ["Initech", "Globex"]  # live, then written
    assert ctx.known_names("departments") == ["Finance", "Human Resources", "Finance"]


def test_employees_are_offered_by_the_employee_key_as_the_manifests_write_it() -> None:
    """Live employees are keyed records without names to offer: only the manifests' keys."""
    manifest = {
        "settings": {"employee_key": "employeeNumber"},
        "workspace": {"employees": [{"employeeNumber": "E-7", "email": "amy@acme.com"}]},
    }
    desired = DesiredState.from_manifest(Manifest.model_validate(manifest))
    live = LiveEmployees(key_field="employeeNumber", by_key={"E-1": ({"employeeNumber": "E-1"},)})
    ctx = PlanContext(desired, {"workspace.employees": live}, frozenset())
    assert ctx.live_names("workspace.employees") == []
    assert ctx.known_names("workspace.employees") == ["E-7"]


def test_each_kind_counts_and_keys_the_live_objects_read() -> None:
    live = context().live
    counts = {kind: len(data) for kind, data in sorted(live.items())}
    assert counts == {
        "categories": 2,
        "companies": 1,
        "custom_fields": 3,  # definitions of every usage type read
        "departments": 2,
        "tech_permissions": 1,  # the categories read that have technicians
        "users": 1,
    }
    assert live["custom_fields"].keys() == frozenset({"tier", "badge", "floor"})
    assert live["departments"].keys() == frozenset({"finance", "human resources"})
    assert live["categories"].keys() == frozenset({"software", "hardware"})
    assert live["tech_permissions"].keys() == frozenset({"software"})
