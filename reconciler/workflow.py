"""The steps around the pure planner: open the clients, authenticate once, read the live
state, plan (`read_and_plan`, read-only), and for apply also execute (`ApplySession`).
The CLI calls these; so can anyone embedding reconciler."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Iterable
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass
from typing import Any

import httpx

from reconciler.apply import ApplyReport, Executor, OperationLog
from reconciler.changes import Change
from reconciler.clients import (
    BasicAuth,
    BearerAuth,
    HelpdeskAuth,
    HelpdeskClient,
    RateLimits,
    WorkspaceClient,
)
from reconciler.connection import Connection, HelpdeskConnection
from reconciler.errors import StalePlanError
from reconciler.live import LiveState, read_live
from reconciler.manifest import DesiredState
from reconciler.plan import Plan, Selector, plan, prune_kinds
from reconciler.resources import LOCATORS, RESOURCES

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
                    transport=transport,
                    max_concurrency=max_concurrency,
                )
            )
        if connection.workspace is not None:
            workspace = await stack.enter_async_context(
                WorkspaceClient(
                    connection.workspace.url,
                    connection.workspace.api_key,
                    read_only=read_only,
                    transport=transport,
                    max_concurrency=max_concurrency,
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


class ApplySession:
    """`reconciler apply`: one authenticated session that reads, plans (or checks a saved
    plan against the live state) and executes, so that a confirmation can sit between."""

    def __init__(
        self,
        desired: DesiredState,
        connection: Connection,
        *,
        transport: httpx.AsyncBaseTransport | None = None,
        max_concurrency: int = MAX_CONCURRENCY,
    ) -> None:
        self.desired = desired
        self.connection = connection
        self.transport = transport
        self.max_concurrency = max_concurrency
        self._stack = AsyncExitStack()
        self.clients = Clients(None, None)

    async def __aenter__(self) -> ApplySession:
        self.clients = await self._stack.enter_async_context(
            open_clients(
                self.connection,
                read_only=False,
                transport=self.transport,
                max_concurrency=self.max_concurrency,
            )
        )
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self._stack.aclose()

    async def plan(
        self,
        *,
        prune: bool = False,
        targets: Iterable[Selector] = (),
        excludes: Iterable[Selector] = (),
        saved: Plan | None = None,
        on_read: Callable[[str], None] | None = None,
    ) -> tuple[Plan, LiveState]:
        """The plan to execute: computed now, or `saved` when the live state it was
        computed from is still the live state (else StalePlanError)."""
        live = await read_state(self.desired, self.clients, prune=prune, on_read=on_read)
        if saved is not None:
            if saved.live_digest != live.digest():
                raise StalePlanError(
                    "the live state has changed since this plan was made (or the manifests "
                    "given now differ from those it was made from): run `reconciler plan` "
                    "again and apply the new plan"
                )
            return saved, live
        result = plan(
            self.desired,
            live,
            resources=RESOURCES,
            prune=prune,
            targets=targets,
            excludes=excludes,
        )
        return result, live

    async def execute(
        self,
        to_apply: Plan,
        *,
        log: OperationLog | None = None,
        on_operation: Callable[[], None] | None = None,
    ) -> ApplyReport:
        clients = self.clients

        async def locate(change: Change) -> Any:
            finder = LOCATORS.get(change.kind)
            if finder is None:
                return None
            return await finder(change, clients.helpdesk, clients.workspace, self.desired)

        executor = Executor(
            to_apply,
            helpdesk=clients.helpdesk,
            workspace=clients.workspace,
            locate=locate,
            log=log,
            on_operation=on_operation,
        )
        return await executor.run()
