"""The steps a command takes around the pure planner: open the clients, authenticate once,
read the live state and plan (`read_and_plan`, read-only). Applying is
`reconciler.applying.session`. The CLI calls these; so can anyone embedding reconciler."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Iterable
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass, replace
from typing import Any

import httpx

from reconciler.clients import (
    BasicAuth,
    BearerAuth,
    HelpdeskAuth,
    HelpdeskClient,
    RateLimits,
    WorkspaceClient,
)
from reconciler.clients.connection import Connection, HelpdeskConnection
from reconciler.errors import AuthenticationError, UsageError
from reconciler.kinds.register import RESOURCES
from reconciler.kinds.table import service_of
from reconciler.live import LiveState, read_live
from reconciler.manifest.desired import DesiredState
from reconciler.planning.plan import plan, prune_kinds
from reconciler.planning.safety import brake_verdict
from reconciler.plans import Plan
from reconciler.plans.addresses import Selector

MAX_CONCURRENCY = 6  # requests in flight per client, as the clients' own default


@dataclass
class Clients:
    helpdesk: HelpdeskClient | None
    workspace: WorkspaceClient | None

    @property
    def calls(self) -> int:
        return sum(c.calls for c in (self.helpdesk, self.workspace) if c is not None)


def helpdesk_auth(connection: HelpdeskConnection) -> HelpdeskAuth:
    if connection.token is not None:
        return BearerAuth(connection.token)
    assert connection.username is not None and connection.password is not None
    return BasicAuth(connection.username, connection.password)


@asynccontextmanager
async def open_clients(
    connection: Connection,
    *,
    read_only: bool,
    transport: httpx.AsyncBaseTransport | None = None,
    max_concurrency: int = MAX_CONCURRENCY,
) -> AsyncIterator[Clients]:
    """Clients for the configured services; `transport` is for in-process tests,
    `max_concurrency` (requests in flight per client) for measuring, e.g. an apply one
    operation at a time (benchmarks/apply_bench.py)."""
    async with AsyncExitStack() as stack:
        helpdesk = workspace = None
        if connection.helpdesk is not None:
            limits = RateLimits(general=connection.rates.general, search=connection.rates.search)
            helpdesk = await stack.enter_async_context(
                HelpdeskClient(
                    connection.helpdesk.url,
                    helpdesk_auth(connection.helpdesk),
                    read_only=read_only,
                    limits=limits,
                    retry=connection.timeouts.retry(),
                    transport=transport,
                    timeout=connection.timeouts.http(),
                    max_concurrency=max_concurrency,
                    ca_file=connection.ca_file,
                )
            )
        if connection.workspace is not None:
            workspace = await stack.enter_async_context(
                WorkspaceClient(
                    connection.workspace.url,
                    connection.workspace.api_key,
                    read_only=read_only,
                    retry=connection.timeouts.retry(),
                    transport=transport,
                    timeout=connection.timeouts.http(),
                    max_concurrency=max_concurrency,
                    ca_file=connection.ca_file,
                )
            )
        yield Clients(helpdesk, workspace)


async def read_state(
    desired: DesiredState,
    clients: Clients,
    *,
    prune: bool = False,
    on_read: Callable[[str], None] | None = None,
) -> LiveState:
    # Authentication is verified once, before anything else: a failure stops here.
    if clients.helpdesk is not None:
        require_administrator(await clients.helpdesk.authenticate())
    return await read_live(
        desired,
        RESOURCES,
        helpdesk=clients.helpdesk,
        workspace=clients.workspace,
        prune=prune_kinds(desired, prune),
        on_read=on_read,
    )


def check_services(
    desired: DesiredState, connection: Connection, excludes: Iterable[Selector] = ()
) -> None:
    """A kind the manifests manage whose service is not configured is an error naming
    the variables to set (DESIGN §3), unless the whole kind is excluded: a drift check
    must not pass by silently not checking half of what it manages."""
    left_out = {s.kind for s in excludes if s.key is None}
    configured = {"helpdesk": connection.helpdesk, "workspace": connection.workspace}
    missing: dict[str, list[str]] = {}
    for kind in sorted(str(k) for k in desired.kinds_used):
        service = service_of(kind)
        if kind not in left_out and configured[service] is None:
            missing.setdefault(service, []).append(kind)
    if not missing:
        return
    # One line per service, each a whole message: what is missing and both ways out.
    lines = [
        f"the manifests manage {', '.join(kinds)}, but the {service} service is not "
        f"configured: set {_VARIABLES[service]}, or leave "
        f"{'it' if len(kinds) == 1 else 'them'} out with "
        + " ".join(f"--exclude {kind}" for kind in kinds)
        for service, kinds in sorted(missing.items())
    ]
    raise UsageError("\n".join(lines))


_VARIABLES = {
    "helpdesk": "HELPDESK_URL and HELPDESK_TOKEN (or HELPDESK_USERNAME and HELPDESK_PASSWORD)",
    "workspace": "WORKSPACE_URL and WORKSPACE_API_KEY",
}


def judged_plan(
    desired: DesiredState,
    live: LiveState,
    *,
    prune: bool,
    targets: Iterable[Selector],
    excludes: Iterable[Selector],
) -> Plan:
    """The plan of `desired` against `live`, with the safety brake's verdict on it, for
    reviewers and for apply."""
    result = plan(
        desired, live, resources=RESOURCES, prune=prune, targets=targets, excludes=excludes
    )
    return replace(result, brake=brake_verdict(result, live, desired.settings.safety))


def require_administrator(caller: dict[str, Any]) -> None:
    """The helpdesk endpoints reconciler reads and writes (Users, Companies, Departments,
    Rule, every create and update) are for administrators. An account that is not one is
    refused on its `Authorization` answer, its one request, rather than by a 403 after
    reads of other kinds have already gone out."""
    if caller.get("IsAdmin") is False:
        name = caller.get("Username")
        who = f"the helpdesk account {name!r}" if isinstance(name, str) else "the helpdesk account"
        raise AuthenticationError(
            403,
            "POST",
            "/api/Authorization",
            f"{who} is not an administrator: reconciler needs an administrator's token "
            "(or username and password)",
        )


@dataclass(frozen=True)
class PlanOutcome:
    plan: Plan
    live: LiveState
    calls: int


async def read_and_plan(
    desired: DesiredState,
    connection: Connection,
    *,
    prune: bool = False,
    targets: Iterable[Selector] = (),
    excludes: Iterable[Selector] = (),
    on_read: Callable[[str], None] | None = None,
    transport: httpx.AsyncBaseTransport | None = None,
) -> PlanOutcome:
    """`reconciler plan`: read-only clients (a write attempt is a bug and raises)."""
    excludes = list(excludes)
    check_services(desired, connection, excludes)
    async with open_clients(connection, read_only=True, transport=transport) as clients:
        live = await read_state(desired, clients, prune=prune, on_read=on_read)
        calls = clients.calls
    found = judged_plan(desired, live, prune=prune, targets=targets, excludes=excludes)
    return PlanOutcome(found, live, calls)
