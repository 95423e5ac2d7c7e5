"""The steps around the pure planner: open the clients, authenticate once, read the live
state, plan. The CLI calls these; so can anyone embedding reconciler."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Iterable
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass

import httpx

from reconciler.clients import (
    BasicAuth,
    BearerAuth,
    HelpdeskAuth,
    HelpdeskClient,
    RateLimits,
    WorkspaceClient,
)
from reconciler.connection import Connection, HelpdeskConnection
from reconciler.live import LiveState, read_live
from reconciler.manifest import DesiredState
from reconciler.plan import Plan, Selector, plan, prune_kinds
from reconciler.resources import RESOURCES


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
) -> AsyncIterator[Clients]:
    """Clients for the configured services; `transport` is for in-process tests."""
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
                    transport=transport,
                )
            )
        if connection.workspace is not None:
            workspace = await stack.enter_async_context(
                WorkspaceClient(
                    connection.workspace.url,
                    connection.workspace.api_key,
                    read_only=read_only,
                    transport=transport,
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
        await clients.helpdesk.authenticate()
    return await read_live(
        desired,
        RESOURCES,
        helpdesk=clients.helpdesk,
        workspace=clients.workspace,
        prune=prune_kinds(desired, prune),
        on_read=on_read,
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
    async with open_clients(connection, read_only=True, transport=transport) as clients:
        live = await read_state(desired, clients, prune=prune, on_read=on_read)
        calls = clients.calls
    result = plan(
        desired, live, resources=RESOURCES, prune=prune, targets=targets, excludes=excludes
    )
    return PlanOutcome(result, live, calls)
