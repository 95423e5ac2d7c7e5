"""The steps around the planner (planning/workflow.py), whole messages: an account that is
not an administrator is refused on its `Authorization` answer, naming it; manifests whose
services are both unconfigured get one line per service, each naming its variables; the
clients `plan` opens and what reaches them; `--prune` from the entry points; and a kind left
out with its unconfigured service, which is not read."""

from __future__ import annotations

import asyncio
import tempfile
from dataclasses import replace
from pathlib import Path
from typing import Any

import httpx
import pytest

from reconciler.applying.session import ApplyOptions, ApplySession
from reconciler.clients import BasicAuth, BearerAuth, activity
from reconciler.clients.auth import Secret
from reconciler.clients.connection import (
    Connection,
    HelpdeskConnection,
    RateSettings,
    Timeouts,
    WorkspaceConnection,
)
from reconciler.clients.ratelimit import RATE_MARGIN
from reconciler.errors import AuthenticationError, ReadOnlyViolation, UsageError
from reconciler.kinds.assets import Asset
from reconciler.kinds.companies import Company
from reconciler.kinds.departments import Department
from reconciler.kinds.employees import Employee
from reconciler.kinds.register import RESOURCES
from reconciler.kinds.users import User
from reconciler.live import read_live
from reconciler.manifest.desired import DesiredState
from reconciler.manifest.document import Manifest, Workspace
from reconciler.planning.plan import plan
from reconciler.plans import Plan
from reconciler.plans.addresses import Selector
from reconciler.sandbox.seed import Credentials
from reconciler.sandbox.state import SandboxState
from reconciler.session.workflow import (
    Clients,
    check_services,
    helpdesk_auth,
    open_clients,
    read_and_plan,
    require_administrator,
)
from tests.applying.inprocess import asgi, connection, seeded
from tests.planning.fakes import SnapshotClient

NEEDS = (
    "is not an administrator: reconciler needs an administrator's token (or username and password)"
)


@pytest.mark.parametrize(
    ("caller", "who"),
    [
        ({"IsAdmin": False, "Username": "tech1"}, "the helpdesk account 'tech1'"),
        ({"IsAdmin": False, "Username": None}, "the helpdesk account"),
        ({"IsAdmin": False}, "the helpdesk account"),
    ],
)
def test_a_technician_is_refused_naming_the_account(caller: dict[str, Any], who: str) -> None:
    with pytest.raises(AuthenticationError) as refused:
        require_administrator(caller)
    assert (refused.value.status, refused.value.method) == (403, "POST")
    assert str(refused.value) == f"POST /api/Authorization failed: 403 {who} {NEEDS}"


@pytest.mark.parametrize("caller", [{"IsAdmin": True, "Username": "admin"}, {}])
def test_an_administrator_or_an_answer_that_does_not_say_passes(caller: dict[str, Any]) -> None:
    require_administrator(caller)


def test_both_services_unconfigured_is_one_line_each() -> None:
    manifest = Manifest(companies=[Company(name="Acme")], departments=[Department(name="IT")])
    with pytest.raises(UsageError) as refused:
        check_services(DesiredState.from_manifest(manifest), Connection(None, None))
    assert str(refused.value) == (
        "the manifests manage companies, departments, but the helpdesk service is not "
        "configured: set HELPDESK_URL and HELPDESK_TOKEN (or HELPDESK_USERNAME and "
        "HELPDESK_PASSWORD), or leave them out with --exclude companies --exclude departments"
    )
    left = [Selector("companies")]
    with pytest.raises(UsageError) as refused:
        check_services(DesiredState.from_manifest(manifest), Connection(None, None), left)
    assert str(refused.value).endswith("or leave it out with --exclude departments")


def test_the_helpdesk_is_signed_in_to_with_a_token_else_a_password() -> None:
    token = HelpdeskConnection("https://h.example.com", token=Secret("t"))
    assert isinstance(helpdesk_auth(token), BearerAuth)
    password = HelpdeskConnection("https://h.example.com", username="u", password=Secret("p"))
    assert isinstance(helpdesk_auth(password), BasicAuth)


def test_read_and_plan_keeps_to_the_targets_and_counts_its_calls() -> None:
    state, credentials = seeded("acme")
    desired = DesiredState.from_manifest(
        Manifest(companies=[Company(name="Acme Corp", notes="moved"), Company(name="Newco")])
    )
    outcome = asyncio.run(
        read_and_plan(
            desired,
            connection(credentials),
            targets=[Selector("companies", "Newco")],
            excludes=[Selector("workspace.employees")],
            transport=asgi(state),
        )
    )
    assert [c.address for c in outcome.plan.changes] == ['companies["Newco"]']
    assert outcome.plan.brake is not None and not outcome.plan.brake.holds
    assert outcome.calls == len(state.requests) > 0
    assert "companies" in outcome.live.kinds


@pytest.mark.parametrize("service", ["helpdesk", "workspace"])
def test_the_requests_in_flight_reach_each_client(service: str) -> None:
    """`apply --parallelism N` bounds each client's requests in flight: a bound the
    client refuses (0) is refused whichever service it is for."""
    helpdesk = HelpdeskConnection("http://127.0.0.1:9/helpdesk", token=Secret("t"))
    workspace = WorkspaceConnection("http://127.0.0.1:9/workspace", Secret("k"))
    only = Connection(helpdesk, None) if service == "helpdesk" else Connection(None, workspace)

    async def main() -> None:
        async with open_clients(only, read_only=True, max_concurrency=0):
            pass

    with pytest.raises(ValueError, match="max_concurrency must be at least 1"):
        asyncio.run(main())


# The clients `plan` opens (planning/workflow.py open_clients): `--timeout` reaches every request
# of both services, `--rate-limit` holds the helpdesk's reads (a wait shown before the call over
# the limit), and a read-only pair (what `plan` and `export` open) refuses any write to either
# service before it is sent, while `apply`'s pair sends it.

_DESIRED = DesiredState.from_manifest(
    Manifest(
        companies=[Company(name="Acme Corp")],
        departments=[Department(name="IT")],
        workspace=Workspace(employees=[Employee(email="new@acme.example")]),
    )
)


class Recording(httpx.AsyncBaseTransport):
    """The in-process sandbox, noting each request's method, path and timeout."""

    def __init__(self, inner: httpx.AsyncBaseTransport) -> None:
        self.inner = inner
        self.seen: list[tuple[str, str, dict[str, float | None]]] = []

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        self.seen.append((request.method, request.url.path, request.extensions["timeout"]))
        return await self.inner.handle_async_request(request)


def test_the_commands_timeout_reaches_every_read_of_plan_on_both_services() -> None:
    state, credentials = seeded("acme")
    recording = Recording(asgi(state))
    outcome = asyncio.run(
        read_and_plan(
            _DESIRED,
            replace(connection(credentials), timeouts=Timeouts(7)),
            transport=recording,
        )
    )
    assert outcome.calls == len(recording.seen)
    services = {path.split("/")[1] for _, path, _ in recording.seen}
    assert services == {"helpdesk", "workspace"}
    seven = {"connect": 7.0, "read": 7.0, "write": 7.0, "pool": 7.0}
    assert [t for _, _, t in recording.seen] == [seven] * len(recording.seen)


class RateWait(Exception):
    """Raised by the observer at the first wait for the client's own rate limit."""


class StopAtTheRateLimit:
    def call_sent(self) -> None:
        pass

    def waiting(self, seconds: float, reason: str) -> None:
        if reason == activity.RATE_LIMIT:
            raise RateWait(seconds)


@pytest.mark.parametrize("general", [1, 2])
def test_the_helpdesk_reads_of_plan_keep_to_the_rate_limit(general: int) -> None:
    """`--rate-limit N`: plan's helpdesk client starts at most N calls a minute; the
    progress display is told of the wait (here, stopped there) before call N + 1."""
    state, credentials = seeded("acme")
    limited = replace(connection(credentials), rates=RateSettings(general, 0))
    with activity.observing(StopAtTheRateLimit()), pytest.raises(RateWait) as waited:
        asyncio.run(read_and_plan(_DESIRED, limited, transport=asgi(state)))
    assert 50 < waited.value.args[0] <= 60 * 1.02
    helpdesk = [r for r in state.requests if r["path"].startswith("/helpdesk/")]
    assert len(helpdesk) == general


def test_without_a_rate_limit_plan_never_waits() -> None:
    state, credentials = seeded("acme")
    with activity.observing(StopAtTheRateLimit()):
        outcome = asyncio.run(
            read_and_plan(_DESIRED, connection(credentials), transport=asgi(state))
        )
    assert outcome.calls > 2


async def _write_each(clients: Clients) -> list[str]:
    outcomes = []
    assert clients.helpdesk is not None and clients.workspace is not None
    writes = (
        clients.helpdesk.request("POST", "Company", {"name": "Newco"}, write=True),
        clients.workspace.request(
            "POST",
            "employees",
            {"email": "n@acme.example", "firstName": "N", "lastName": "Ew"},
            write=True,
        ),
    )
    for write in writes:
        try:
            await write
            outcomes.append("sent")
        except ReadOnlyViolation as refused:
            outcomes.append(str(refused))
    return outcomes


@pytest.mark.parametrize(
    ("read_only", "outcomes"),
    [
        (
            True,
            [
                "POST /api/Company is a write, attempted through a read-only client",
                "POST /api/employees is a write, attempted through a read-only client",
            ],
        ),
        (False, ["sent", "sent"]),
    ],
)
def test_a_read_only_pair_refuses_a_write_to_either_service_before_sending(
    read_only: bool, outcomes: list[str]
) -> None:
    state, credentials = seeded("acme")
    recording = Recording(asgi(state))

    async def main() -> list[str]:
        async with open_clients(
            connection(credentials), read_only=read_only, transport=recording
        ) as clients:
            return await _write_each(clients)

    assert asyncio.run(main()) == outcomes
    writes = [p for m, p, _ in recording.seen if m == "POST" and not p.endswith("Authorization")]
    assert len(writes) == (0 if read_only else 2)


@pytest.mark.parametrize(("search", "waits"), [(1, True), (0, False)])
def test_the_search_rate_limit_reaches_the_helpdesk_client(search: int, waits: bool) -> None:
    """`--search-rate-limit N` holds `Search` and `UserByEmail` calls (an embedder's, through
    the clients `open_clients` gives) to N a minute, apart from the general budget."""

    def answer(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, json={"UserID": 1, "IsAdmin": True})

    helpdesk = HelpdeskConnection("http://127.0.0.1:9/helpdesk", token=Secret("t"))
    limited = Connection(helpdesk, None, RateSettings(0, search))

    async def main() -> None:
        async with open_clients(
            limited, read_only=True, transport=httpx.MockTransport(answer)
        ) as clients:
            assert clients.helpdesk is not None
            for _ in range(2):
                await clients.helpdesk.request(
                    "GET", "UserByEmail", {"email": "a@b.c"}, write=False
                )

    with activity.observing(StopAtTheRateLimit()):
        if waits:
            with pytest.raises(RateWait) as waited:
                asyncio.run(main())
            (seconds,) = waited.value.args
            # The second search waits out the minute of the first, widened by the margin.
            assert 60.0 < seconds <= 60.0 * (1 + RATE_MARGIN)
        else:
            asyncio.run(main())


def test_plan_tells_its_progress_each_kind_it_has_read() -> None:
    """What `plan`'s progress shows as 'read companies, departments, ...'."""
    state, credentials = seeded("acme")
    read: list[str] = []
    asyncio.run(
        read_and_plan(_DESIRED, connection(credentials), on_read=read.append, transport=asgi(state))
    )
    assert sorted(read) == ["companies", "departments", "workspace.employees"]


# `--prune` from the entry points to the far end, against the sandbox in-process: `plan`
# (`read_and_plan`) and an apply's plan (`ApplySession.plan`) with prune read the unlisted and
# disabled objects too and plan to disable what the manifests do not list, the brake holding on
# the share; without it, nothing is read beyond what is listed and nothing is planned. A key-only
# `--exclude` does not excuse a kind whose service is not configured.

DESIRED = DesiredState.from_manifest(
    Manifest(users=[User(username="admin")], assets=[Asset(serial_number="PF4KX2A2")])
)
USERS = ["alice", "bob", "carla", "dmitri", "felix", "helen", "ivan", "omar", "priya", "tina"]
ASSETS = [
    "24A43F9C1D7E", "5CG4210JQ7", "5CG4210JQ8", "9XK2L93", "9XK2L94", "C02FK3ZQMD6R",
    "CN0J2N3K01", "CN0J2N3K02", "CN0J2N3K03", "CN0J2N3K04", "F4GZK1A1", "F4GZK1A2",
    "F4GZK1A3", "F4GZK1A4", "PF3HT7C9", "PF4KX2A1", "PF4KX2A3", "PF4KX2A4",
    "Q2KN-5WLD-7HTX", "VNB3K12345",
]  # fmt: skip


def by_plan(state: SandboxState, credentials: Credentials, prune: bool) -> Plan:
    outcome = asyncio.run(
        read_and_plan(DESIRED, connection(credentials), prune=prune, transport=asgi(state))
    )
    assert outcome.calls == len(state.requests)  # every request counted
    return outcome.plan


def by_apply(state: SandboxState, credentials: Credentials, prune: bool) -> Plan:
    async def make() -> Plan:
        where = Path(tempfile.mkdtemp(prefix="reconciler-prune-"))
        async with ApplySession(
            DESIRED,
            connection(credentials),
            options=ApplyOptions(prune=prune),
            transport=asgi(state),
            lock_directory=where,
        ) as session:
            return await session.plan()

    return asyncio.run(make())


@pytest.mark.parametrize("entry", [by_plan, by_apply], ids=["plan", "apply"])
def test_prune_reaches_the_reads_and_the_planner(entry: object) -> None:
    assert callable(entry)
    state, credentials = seeded("acme")
    unpruned = entry(state, credentials, False)
    assert (unpruned.changes, unpruned.errors, unpruned.warnings) == ((), (), ())
    assert unpruned.brake is not None and unpruned.brake.held == ()

    more, credentials = seeded("acme")
    pruned = entry(more, credentials, True)
    assert len(more.requests) > len(state.requests)  # the unlisted read as well
    assert pruned.errors == ()
    assert [(c.address, c.action.value) for c in pruned.changes] == [
        *((f'assets["{serial}"]', "disable") for serial in ASSETS),
        *((f'users["{name}"]', "disable") for name in USERS),
    ]
    assert pruned.brake is not None and pruned.brake.held == (
        "assets: 20 of 22 live objects would change or go (91%, above the 30% limit)",
        "users: 10 of 11 live objects would change or go (91%, above the 30% limit)",
    )


def test_an_exclude_of_one_object_does_not_excuse_an_unconfigured_service() -> None:
    only_users = DesiredState.from_manifest(Manifest(users=[User(username="admin")]))
    with pytest.raises(UsageError) as refused:
        check_services(only_users, Connection(None, None), [Selector("users", "admin")])
    assert str(refused.value) == (
        "the manifests manage users, but the helpdesk service is not configured: set "
        "HELPDESK_URL and HELPDESK_TOKEN (or HELPDESK_USERNAME and HELPDESK_PASSWORD), "
        "or leave it out with --exclude users"
    )
    check_services(only_users, Connection(None, None), [Selector("users")])  # the whole kind


def test_a_renamed_kind_left_out_with_its_unconfigured_service_is_skipped_whole() -> None:
    """Companies renamed in the manifests (`previously:`) while the helpdesk is not configured
    and `--exclude companies` leaves them out: nothing of theirs was read, so no rename is
    looked for; the workspace is planned and the skip is a warning."""
    renamed = DesiredState.from_manifest(
        Manifest(
            companies=[Company(name="Acme Corp", previously=["Acme"])],
            workspace=Workspace(employees=[Employee(email="ann@acme.com", first_name="Ann")]),
        )
    )
    left = [Selector("companies")]
    employees = SnapshotClient({"employees": []})
    live = asyncio.run(read_live(renamed, RESOURCES, helpdesk=None, workspace=employees))
    planned = plan(renamed, live, resources=RESOURCES, excludes=left)
    assert [(c.address, c.action.value) for c in planned.changes] == [
        ('workspace.employees["ann@acme.com"]', "create")
    ]
    assert planned.errors == ()
    assert [(w.message, w.remedy) for w in planned.warnings] == [
        (
            "companies skipped: the helpdesk service is not configured",
            "set HELPDESK_URL and HELPDESK_TOKEN (or HELPDESK_USERNAME and HELPDESK_PASSWORD)",
        )
    ]
