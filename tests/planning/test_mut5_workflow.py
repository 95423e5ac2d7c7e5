"""The clients `plan` opens (run/workflow.py open_clients): `--timeout` reaches every
request of both services, `--rate-limit` holds the helpdesk's reads (a wait shown before
the call over the limit), and a read-only pair (what `plan` and `export` open) refuses
any write to either service before it is sent, while `apply`'s pair sends it."""

from __future__ import annotations

import asyncio
from dataclasses import replace

import httpx
import pytest

from reconciler.clients import activity
from reconciler.clients.auth import Secret
from reconciler.clients.connection import Connection, HelpdeskConnection, RateSettings, Timeouts
from reconciler.errors import ReadOnlyViolation
from reconciler.manifest import DesiredState
from reconciler.manifest.models import Company, Department, Employee, Manifest, Workspace
from reconciler.run.workflow import Clients, open_clients, read_and_plan
from tests.applying.inprocess import asgi, connection, seeded

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
            with pytest.raises(RateWait):
                asyncio.run(main())
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
