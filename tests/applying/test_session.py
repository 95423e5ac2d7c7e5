"""`ApplySession` against the sandbox in-process: a whole apply that converges, lost
create answers recovered through the real locators, and what a session leaves behind when
it ends: the apply lock of its services free again (a program that plans, then applies, in
one process, or applies twice, is not refused by its own first session), whether it ended
normally or with an error. Its options: a parallelism under one refused, the lock directory
it is given, a saved plan made with other flags refused naming them; its lock the
helpdesk's however its address is spelled; outside `async with`, planning refused."""

from __future__ import annotations

import asyncio
import dataclasses
import json
import tempfile
from pathlib import Path
from typing import Any

import httpx
import pytest

from reconciler.applying.executor import ApplyReport
from reconciler.applying.lock import ApplyLock
from reconciler.applying.session import ApplySession
from reconciler.errors import AuthenticationError, StalePlanError
from reconciler.manifest.desired import DesiredState
from reconciler.manifest.loader import load_manifests
from reconciler.plans import Action, Plan
from reconciler.plans.planfile import PlanInputs, SavedPlan, manifests_digest
from reconciler.sandbox.seed import Credentials
from reconciler.sandbox.state import SandboxState
from tests.applying.inprocess import (
    EXAMPLE,
    LosingTransport,
    admin_client,
    asgi,
    connection,
    mismatches,
    requests_to,
    seeded,
)
from tests.applying.test_applylock import held_here

# The creates whose repetition would make a duplicate, and where they are sent.
CREATE_PATHS = {
    "categories": ("POST", "/helpdesk/api/AddCategory"),
    "users": ("POST", "/helpdesk/api/CreateUser"),
    "assets": ("POST", "/helpdesk/api/Asset"),
    "workspace.employees": ("POST", "/workspace/api/employees"),
}

URLS = ["http://127.0.0.1/helpdesk", "http://127.0.0.1/workspace"]


@pytest.fixture(scope="module")
def desired() -> DesiredState:
    return load_manifests([EXAMPLE], env={})


def session(
    credentials: Credentials,
    desired: DesiredState,
    transport: httpx.AsyncBaseTransport,
    **kwargs: Any,
) -> ApplySession:
    """A session with its log and lock files in a directory of its own."""
    where = Path(tempfile.mkdtemp(prefix="reconciler-session-"))
    return ApplySession(
        desired,
        connection(credentials),
        transport=transport,
        log_path=where / "apply.jsonl",
        lock_directory=where,
        **kwargs,
    )


async def plan_in(state: SandboxState, credentials: Credentials, desired: DesiredState) -> Plan:
    async with session(credentials, desired, asgi(state)) as opened:
        return await opened.plan()


def logged_operations(log_path: Path | None) -> list[dict[str, Any]]:
    assert log_path is not None
    lines = log_path.read_text(encoding="utf-8").splitlines()
    return [e for e in map(json.loads, lines) if "operation" in e]


async def plan_and_apply(
    transport: httpx.AsyncBaseTransport,
    credentials: Credentials,
    desired: DesiredState,
    **kwargs: Any,
) -> tuple[Plan, ApplyReport, list[dict[str, Any]]]:
    async with session(credentials, desired, transport, **kwargs) as opened:
        outcome = await opened.apply(confirm=lambda plan: True)
        assert outcome.report is not None
        return outcome.plan, outcome.report, logged_operations(outcome.log_path)


# -- a whole apply ---------------------------------------------------------------------------


def test_applying_the_example_converges(desired: DesiredState) -> None:
    state, credentials = seeded("acme")
    first, report, log = asyncio.run(plan_and_apply(asgi(state), credentials, desired))
    assert report.ok, (report.failed, report.not_attempted)
    assert sorted(report.done) == sorted(c.address for c in first.changes)
    assert report.operations_sent == first.operation_count == len(log)
    assert report.recovered == 0
    again = asyncio.run(plan_in(state, credentials, desired))
    assert again.changes == () and again.errors == ()
    assert mismatches(state, credentials, desired) == []


def test_a_bootstrap_from_the_catalogue_converges(desired: DesiredState) -> None:
    state, credentials = seeded("acme-catalogue")
    first, report, _ = asyncio.run(plan_and_apply(asgi(state), credentials, desired))
    assert report.ok, (report.failed, report.not_attempted)
    assert first.summary["create"] >= 50
    again = asyncio.run(plan_in(state, credentials, desired))
    assert again.changes == () and again.errors == ()
    assert mismatches(state, credentials, desired) == []


def test_the_read_back_sees_what_differs(desired: DesiredState) -> None:
    # The comparison the end-to-end bootstrap relies on must be able to fail: against
    # the acme seed (before apply) it finds exactly the drift examples/acme/README.md lists.
    state, credentials = seeded("acme")
    found = {p.split(": manifest ")[0] for p in mismatches(state, credentials, desired)}
    assert found == {
        'companies["Acme Robotics"]: email_domains',
        'companies["Acme Robotics"]: notes',
        'companies["Acme Field Services"]: custom_fields.Contract tier',
        'companies["Globex Logistics"]: missing',
        'categories["Office Supplies"]: missing',
        'tech_permissions["Hardware"]: technicians',
        'tech_permissions["Network"]: technicians',
        'tech_permissions["Accounts & Access"]: technicians',
        'users["ivan"]: disabled',
        'users["carla"]: last_name',
        'users["hana"]: missing',
        'users["dmitri"]: department',
        'users["dmitri"]: custom_fields.Cost centre',
        'users["george"]: missing',
        'assets["PF3HT7C9"]: assigned_users',
        'assets["C02FK3ZQMD6T"]: missing',
        'assets["9XK2L95"]: missing',
        'assets["VNB3K12345"]: location',
        'assets["22134520501234"]: missing',
        'automation_rules["102"]: enabled',
        'workspace.employees["tina.nguyen@acme.com"]: jobTitle',
        'workspace.employees["george.lin@globex-logistics.com"]: missing',
    }


def test_the_read_back_sees_an_object_made_twice(desired: DesiredState) -> None:
    state, credentials = seeded("acme")
    _, report, _ = asyncio.run(plan_and_apply(asgi(state), credentials, desired))
    assert report.ok and mismatches(state, credentials, desired) == []
    with admin_client(state, credentials) as api:
        again = {
            "modelName": "Latitude 5440",
            "manufacturer": "Dell",
            "type": "Laptop",
            "supplier": "CDW",
            "serialNumber": "9XK2L95",
        }
        assert api.post("/helpdesk/api/Asset", data=again).status_code == 200
    found = mismatches(state, credentials, desired)
    assert 'assets["9XK2L95"]: more than one live object' in found
    assert all(p.startswith('assets["9XK2L95"]') for p in found)


def test_wrong_credentials_stop_before_anything_is_read(desired: DesiredState) -> None:
    state, credentials = seeded("acme")
    wrong = Credentials(
        credentials.helpdesk_username,
        "not-the-password",
        credentials.helpdesk_token,
        credentials.workspace_api_key,
    )
    with pytest.raises(AuthenticationError) as refused:
        asyncio.run(plan_in(state, wrong, desired))
    assert str(refused.value) == (
        "POST /api/Authorization failed: 401 Invalid username, password or token"
    )
    assert [(r["path"], r["status"]) for r in state.requests] == [
        ("/helpdesk/api/Authorization", 401)
    ]


# -- lost create answers, with the real locators ----------------------------------------------


def _count(state: SandboxState, table: str, field: str, value: str) -> int:
    return sum(1 for r in state.store.rows(table) if str(r.get(field)).lower() == value.lower())


def _planned_creates(plan: Plan, kind: str) -> list[str]:
    return [c.key for c in plan.changes if c.kind == kind and c.action is Action.create]


def test_creates_whose_answer_was_lost_are_found_again_not_repeated(
    desired: DesiredState,
) -> None:
    state, credentials = seeded("acme")
    losing = LosingTransport(asgi(state), {p: 1 for p in CREATE_PATHS.values()}, before=False)
    plan, report, log = asyncio.run(plan_and_apply(losing, credentials, desired))
    assert sorted(losing.lost) == sorted(CREATE_PATHS.values())
    assert report.ok, (report.failed, report.not_attempted)
    assert report.recovered == len(CREATE_PATHS)
    assert sum(1 for e in log if e["outcome"] == "recovered") == len(CREATE_PATHS)
    for kind, (method, path) in CREATE_PATHS.items():
        # exactly one create reached the sandbox for each object: none was repeated
        assert len(requests_to(state, method, path)) == len(_planned_creates(plan, kind)), kind
    for username in _planned_creates(plan, "users"):
        assert _count(state, "users", "username", username) == 1
    for serial in _planned_creates(plan, "assets"):
        assert _count(state, "assets", "serial_number", serial) == 1
    assert _count(state, "categories", "name", "Office Supplies") == 1
    employees = [r["fields"]["email"] for r in state.store.rows("ws_employees")]
    assert employees.count("george.lin@globex-logistics.com") == 1
    again = asyncio.run(plan_in(state, credentials, desired))
    assert again.changes == ()  # the recovered ids were used: fields and assignments set


def test_creates_lost_before_they_arrived_are_sent_again(desired: DesiredState) -> None:
    state, credentials = seeded("acme")
    losing = LosingTransport(asgi(state), {p: 1 for p in CREATE_PATHS.values()}, before=True)
    plan, report, _ = asyncio.run(plan_and_apply(losing, credentials, desired))
    assert sorted(losing.lost) == sorted(CREATE_PATHS.values())
    assert report.ok, (report.failed, report.not_attempted)
    assert report.recovered == 0
    for kind, (method, path) in CREATE_PATHS.items():
        assert len(requests_to(state, method, path)) == len(_planned_creates(plan, kind)), kind
    for username in _planned_creates(plan, "users"):
        assert _count(state, "users", "username", username) == 1
    again = asyncio.run(plan_in(state, credentials, desired))
    assert again.changes == ()


def test_a_company_create_whose_answer_was_lost_is_retried_without_a_duplicate(
    desired: DesiredState,
) -> None:
    # `Company` answers the existing id for an existing name, so the client repeats it
    # itself (after a short backoff) instead of locating it.
    state, credentials = seeded("acme")
    company = ("POST", "/helpdesk/api/Company")
    losing = LosingTransport(asgi(state), {company: 1}, before=False)
    _, report, _ = asyncio.run(plan_and_apply(losing, credentials, desired))
    assert losing.lost == [company]
    assert report.ok and report.recovered == 0
    assert len(requests_to(state, *company)) == 2
    assert _count(state, "companies", "name", "Globex Logistics") == 1
    assert mismatches(state, credentials, desired) == []


def test_a_session_that_ended_holds_no_lock() -> None:
    state, credentials = seeded("acme")
    desired = load_manifests([EXAMPLE], env={})
    where = Path(tempfile.mkdtemp(prefix="reconciler-session-"))

    def opened() -> ApplySession:
        return ApplySession(
            desired,
            connection(credentials),
            transport=asgi(state),
            log_path=where / "apply.jsonl",
            lock_directory=where,
        )

    async def main() -> None:
        async with opened() as first:
            await first.plan()
        async with opened() as second:  # the same process, the same services: not refused
            await second.plan()
        ended = RuntimeError("ended by an error")
        with pytest.raises(RuntimeError) as raised:
            async with opened():
                raise ended
        assert raised.value is ended  # the session's end lets the error through as it was

    asyncio.run(main())
    with ApplyLock(URLS, directory=where, timeout=0):  # another apply may start at once
        pass


def session_in(where: Path, **kwargs: object) -> ApplySession:
    state, credentials = seeded("acme")
    return ApplySession(
        load_manifests([EXAMPLE], env={}),
        connection(credentials),
        transport=asgi(state),
        log_path=where / "apply.jsonl",
        lock_directory=where,
        **kwargs,  # type: ignore[arg-type]
    )


def test_a_parallelism_under_one_is_refused_and_one_is_not(tmp_path: Path) -> None:
    with pytest.raises(ValueError) as refused:
        session_in(tmp_path, parallelism=0)
    assert str(refused.value) == "parallelism must be at least 1"
    assert session_in(tmp_path, parallelism=1).parallelism == 1  # `apply --parallelism 1`


def test_an_interrupt_before_anything_is_executed_says_to_stop_at_once(tmp_path: Path) -> None:
    async def main() -> tuple[bool, bool]:
        session = session_in(tmp_path)
        before = session.interrupt()
        async with session as opened:
            await opened.plan()
            return before, opened.interrupt()

    assert asyncio.run(main()) == (False, False)  # nothing written: the caller may stop


def test_a_session_not_open_refuses_to_plan_or_apply(tmp_path: Path) -> None:
    """Outside `async with` it has no clients and holds no lock: rather than read nothing
    and find nothing to apply, it says so."""
    not_open = "the apply session is not open: use it inside `async with`"

    async def main() -> None:
        session = session_in(tmp_path)
        with pytest.raises(RuntimeError, match=f"^{not_open}$"):
            await session.plan()
        async with session:
            pass
        with pytest.raises(RuntimeError, match=f"^{not_open}$"):
            await session.apply(confirm=lambda plan: True)

    asyncio.run(main())
    assert not (tmp_path / "apply.jsonl").exists()


@pytest.mark.parametrize(
    ("inputs", "flags"),
    [
        ({"prune": True}, "--prune"),
        ({"targets": ("users",)}, "--target users"),
        ({"excludes": ('users["bob"]',)}, '--exclude users["bob"]'),
    ],
    ids=["prune", "target", "exclude"],
)
def test_a_saved_plan_made_with_other_flags_is_refused_naming_them(
    tmp_path: Path, inputs: dict[str, object], flags: str
) -> None:
    async def main() -> None:
        async with session_in(tmp_path) as opened:
            made = await opened.plan()
            saved = SavedPlan(
                made,
                PlanInputs(manifests_digest(opened.desired), **inputs),  # type: ignore[arg-type]
                [],
            )
            with pytest.raises(StalePlanError) as refused:
                await opened.apply(confirm=lambda plan: True, saved=saved)
            assert str(refused.value) == (
                f"this session's flags differ from those the plan was made with ({flags}): "
                "apply it with the same flags"
            )

    asyncio.run(main())
    assert not (tmp_path / "apply.jsonl").exists()  # nothing executed, nothing logged


def test_the_lock_is_taken_in_the_directory_the_session_is_given(tmp_path: Path) -> None:
    """`RECONCILER_LOCK_DIR` (or a test's own directory) is where the session locks: an
    apply holding the lock there refuses this one, named; held elsewhere, it does not."""
    from reconciler.applying.lock import ApplyLocked

    async def enter(session: ApplySession) -> None:
        async with session:
            pass

    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    with ApplyLock(URLS, directory=elsewhere, timeout=0):
        asyncio.run(enter(session_in(tmp_path)))
    with (
        ApplyLock(URLS, directory=tmp_path, timeout=0),
        pytest.raises(ApplyLocked, match=held_here("http://127.0.0.1/helpdesk")),
    ):
        asyncio.run(enter(session_in(tmp_path)))


def test_the_lock_is_the_helpdesks_however_its_address_is_spelled(tmp_path: Path) -> None:
    """The helpdesk compares paths ignoring case: `/HelpDesk/` on `LOCALHOST` is the
    helpdesk an apply at `127.0.0.1/helpdesk` is writing to, and is refused."""
    from reconciler.applying.lock import ApplyLocked

    state, credentials = seeded("acme")
    usual = connection(credentials)
    assert usual.helpdesk is not None
    helpdesk = dataclasses.replace(usual.helpdesk, url="http://LOCALHOST/HelpDesk/")
    respelled = ApplySession(
        load_manifests([EXAMPLE], env={}),
        dataclasses.replace(usual, helpdesk=helpdesk),
        transport=asgi(state),
        lock_directory=tmp_path,
    )

    async def enter() -> None:
        async with respelled:
            pass

    with (
        ApplyLock(URLS, directory=tmp_path, timeout=0),
        pytest.raises(ApplyLocked, match=held_here("http://127.0.0.1/helpdesk")),
    ):
        asyncio.run(enter())
