"""Users beyond the data-driven cases: that `read` fetches the full User object for exactly
the users `diff` sends an `UpdateUser` for (any manifests, any live state), dependencies on
companies the plan creates, and what happens when the full record is missing."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from reconciler.kinds.register import RESOURCES
from reconciler.kinds.users import User
from reconciler.kinds.users.planner import LiveUser, LiveUsers, UsersResource
from reconciler.live import read_live
from reconciler.manifest.desired import DesiredState
from reconciler.manifest.document import Manifest
from reconciler.manifest.models import Kind, Settings
from reconciler.planning.plan import plan, prune_kinds
from reconciler.plans import Diagnostic, Plan
from reconciler.resources.base import PlanContext
from tests.planning.fakes import SnapshotClient
from tests.planning.test_cases import run_case

USERNAMES = ("admin", "alice", "bob", "carol", "dave")
DEPARTMENTS = [{"DepartmentID": 1, "Name": "IT"}, {"DepartmentID": 2, "Name": "Sales"}]
CALLER_ID = 1


def _live_user(ident: int, username: str, draw: Any) -> dict[str, Any]:
    return {
        "UserID": ident,
        "Username": username,
        "Email": draw(st.sampled_from([f"{username}@acme.com", f"{username.upper()}@ACME.COM"])),
        "FirstName": draw(st.sampled_from(["A", "B", "A  "])),
        "LastName": draw(st.sampled_from(["", "X"])),
        "Notes": draw(st.sampled_from(["", None, "note"])),
        "Location": "",
        "Phone": draw(st.sampled_from(["", None, "1"])),
        "CompanyName": draw(st.sampled_from([None, "Acme", "Globex"])),
        "CompanyId": None,
        "DepartmentID": draw(st.sampled_from([None, 1, 2])),
        "IsAdmin": draw(st.booleans()),
        "Disabled": draw(st.booleans()),
    }


ENTRY_VALUES: dict[str, st.SearchStrategy[Any]] = {
    "email": st.sampled_from(["alice@acme.com", "x@acme.com", None]),
    "first_name": st.sampled_from(["A", "B", None, " A "]),
    "last_name": st.sampled_from(["", "X", None]),
    "notes": st.sampled_from(["", None, "note", "note  "]),
    "phone": st.sampled_from(["", "1"]),
    "company": st.sampled_from(["acme", "Globex", None]),
    "department": st.sampled_from(["it", "SALES", None]),
    "is_admin": st.sampled_from([True, False, None]),
    "disabled": st.sampled_from([True, False, None]),
}


@st.composite
def scenarios(draw: Any) -> tuple[DesiredState, dict[str, Any]]:
    live_names = draw(st.lists(st.sampled_from(USERNAMES[1:]), unique=True))
    users = [_live_user(USERNAMES.index(n) + 1, n, draw) for n in ["admin", *live_names]]
    users[0]["Disabled"] = False  # the caller: a disabled account could not sign in
    entries = []
    for name in draw(st.lists(st.sampled_from(USERNAMES), unique=True, min_size=1)):
        chosen = draw(st.lists(st.sampled_from(sorted(ENTRY_VALUES)), unique=True))
        values = {field: draw(ENTRY_VALUES[field]) for field in chosen}
        values.setdefault("email", f"{name}@acme.com")
        entries.append(User(username=draw(st.sampled_from([name, name.title()])), **values))
    ignored = draw(st.lists(st.sampled_from(["notes", "company", "disabled"]), unique=True))
    prune = [Kind.users] if draw(st.booleans()) else []
    manifest = Manifest(
        settings=Settings(prune=prune, ignore_fields={Kind.users: ignored}), users=entries
    )
    snapshot: dict[str, Any] = {
        "Users": users,
        "Departments": DEPARTMENTS,
        "Companies": [{"CompanyID": 1, "Name": "Acme"}, {"CompanyID": 2, "Name": "Globex"}],
        "Authorization": {"UserID": CALLER_ID, "Username": "admin"},
    }
    for user in users:
        snapshot[f"User?userId={user['UserID']}"] = {**user, "Greeting": "", "SendEmail": True}
    return DesiredState.from_manifest(manifest), snapshot


def _plan(desired: DesiredState, snapshot: dict[str, Any]) -> tuple[Plan, SnapshotClient]:
    helpdesk = SnapshotClient(snapshot)
    pruned = prune_kinds(desired)
    live = asyncio.run(read_live(desired, RESOURCES, helpdesk=helpdesk, prune=pruned))
    return plan(desired, live, resources=RESOURCES), helpdesk


@settings(max_examples=300, deadline=None)
@given(scenarios())
def test_the_full_record_is_read_for_exactly_the_users_that_get_an_update(
    scenario: tuple[DesiredState, dict[str, Any]],
) -> None:
    desired, snapshot = scenario
    result, helpdesk = _plan(desired, snapshot)
    updated = {
        int(op.params["userId"])
        for change in result.changes
        for op in change.operations
        if op.path == "/api/UpdateUser" and isinstance(op.params["userId"], int)
    }
    read = {int(key.split("=")[1]) for key in helpdesk.reads if key.startswith("User?")}
    assert read == updated
    disabled = {
        change.key.casefold()
        for change in result.changes
        for field in change.fields
        if field.path == "disabled" and field.after is True
    }
    assert "admin" not in disabled  # the caller (UserID 1) is never disabled
    assert not [e for e in result.errors if "full user record" in e.message]


def test_a_user_waits_for_the_company_the_plan_creates(tmp_path: Path) -> None:
    case = {
        "desired": {
            "companies": [{"name": "Initech"}],
            "users": [
                {"username": "alice", "email": "alice@acme.com", "company": "initech"},
                {"username": "bob", "company": "Initech"},
            ],
        },
        "live": {
            "helpdesk": {
                "Companies": [],
                "Departments": [],
                "Users": [{"UserID": 6, "Username": "bob", "Email": "bob@acme.com"}],
                "User?userId=6": {"UserID": 6, "Username": "bob"},
            }
        },
    }
    result, _, _ = run_case(case, tmp_path)
    by_address = {c.address: c for c in result.changes}
    assert by_address['users["alice"]'].depends_on == ('companies["Initech"]',)
    assert by_address['users["bob"]'].depends_on == ('companies["Initech"]',)
    assert result.changes[0].address == 'companies["Initech"]'
    assert not result.warnings


def test_a_company_neither_live_nor_managed_is_an_error(tmp_path: Path) -> None:
    case = {
        "desired": {
            "companies": [{"name": "Acme Corp"}],
            "users": [{"username": "alice", "email": "alice@acme.com", "company": "Acme Crop"}],
        },
        "live": {
            "helpdesk": {
                "Companies": [{"CompanyID": 1, "Name": "Acme Corp"}],
                "Departments": [],
                "Users": [],
            }
        },
    }
    result, _, _ = run_case(case, tmp_path)
    # The helpdesk would create the company as a side effect, and none can be deleted.
    assert [e.message for e in result.errors] == [
        "company 'Acme Crop' is neither live nor in the manifests: the helpdesk would create "
        "it as a side effect, and a company cannot be deleted; did you mean 'Acme Corp'?"
    ]
    assert not result.warnings
    # Located at the company's value, not just at the entry.
    where = result.errors[0].location or ""
    path, line, column = where.rsplit(":", 2)
    text = Path(path).read_text().splitlines()[int(line) - 1]
    assert text[int(column) - 1 :].startswith("Acme Crop")


def test_prune_from_the_command_line_reads_the_records_of_users_to_disable() -> None:
    """`--prune` is not in the manifests: the reader is told (`read_live(prune=...)`)."""
    desired = DesiredState.from_manifest(
        Manifest(users=[User(username="alice", email="alice@acme.com")])
    )
    helpdesk = SnapshotClient(
        {
            "Users": [
                {"UserID": 5, "Username": "alice", "Email": "alice@acme.com"},
                {"UserID": 6, "Username": "mallory", "Email": "m@acme.com"},
            ],
            "Departments": [],
            "Authorization": {"UserID": 1},
            "User?userId=6": {"UserID": 6, "Username": "mallory", "Signature": "M"},
        }
    )
    pruned = prune_kinds(desired, True)
    live = asyncio.run(read_live(desired, RESOURCES, helpdesk=helpdesk, prune=pruned))
    result = plan(desired, live, resources=RESOURCES, prune=True)
    assert not result.errors
    [change] = result.changes
    assert (change.address, change.action.value, change.removal) == (
        'users["mallory"]',
        "disable",
        True,
    )
    assert change.operations[0].params["signature"] == "M"
    assert sorted(helpdesk.reads) == ["Departments", "User?userId=6", "Users"]


def test_an_update_without_the_full_record_is_an_error_never_a_partial_record() -> None:
    desired = DesiredState.from_manifest(
        Manifest(users=[User(username="alice", last_name="Jones")])
    )
    live = LiveUsers({"alice": LiveUser(5, "alice", "alice@acme.com", last_name="Smith")})
    ctx = PlanContext(desired, {"users": live}, frozenset())
    result = UsersResource().diff(ctx)
    assert result.diagnostics == [
        Diagnostic(
            "error",
            "the full user record was not read, so UpdateUser cannot send it complete",
            'users["alice"]',
            "plan again; if this persists, it is a bug of the reconciler",
        )
    ]


def test_users_are_read_when_permissions_or_assignments_name_them() -> None:
    resource = UsersResource()
    assert not resource.needs(DesiredState.from_manifest(Manifest()))
    with_techs = Manifest.model_validate(
        {"tech_permissions": [{"category": "Hardware", "technicians": ["tina"]}]}
    )
    assert resource.needs(DesiredState.from_manifest(with_techs))
    with_assets = Manifest.model_validate(
        {"assets": [{"serial_number": "SN-1", "assigned_users": ["tina"]}]}
    )
    assert resource.needs(DesiredState.from_manifest(with_assets))
