"""Executing a plan (DESIGN §5): the changes in dependency order, independent ones
concurrently within the clients' rate budget; the operations of one change in their
order; the ids of created objects fed to the operations that name them (`Ref`).

A create whose outcome is unknown (dropped connection, timeout, 5xx) is never repeated
blindly: the object is looked for first (`Locator`), and created again only when it is
still missing. At the first operation that fails for good no new operation starts; those
in flight finish; the report says what was done, what failed (with the API's message)
and what was not attempted. Every operation is recorded in the apply log; when the log
cannot be written (a full disk), no new operation starts either, as after a failure: an
apply is never carried on without its record.

`interrupt()` (the first Ctrl-C) stops the run the same way without a failure: the clients
send nothing more (`Halted`), the operations already sent finish, and the report says
which changes were in flight and how far each got.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

from reconciler.applying.log import LogUnwritable
from reconciler.clients import Halted, created_id
from reconciler.errors import ApiError, OutcomeUnknown, ReconcilerError
from reconciler.planning.order import KIND_ORDER, dependencies
from reconciler.plans import Change, Operation, Plan, Ref

Locator = Callable[[Change], Awaitable[Any | None]]
RECREATE_ATTEMPTS = 3
# Changes in progress at once (`apply --parallelism`, 10 as Terraform's): as many as the
# clients send requests at once, so every slot stays busy while a change waits for its
# answer, yet a run cut short leaves only this many changes half done (not every user
# created and none given its custom fields). A change has one operation in flight at a
# time, so this bounds the operations in flight.
PARALLEL_CHANGES = 10


class OperationLog(Protocol):
    def record(self, entry: Mapping[str, Any]) -> None: ...


@dataclass
class ApplyReport:
    done: list[str] = field(default_factory=list)
    failed: list[tuple[str, str]] = field(default_factory=list)  # address, message
    partial: list[str] = field(default_factory=list)  # some operations done, then stopped
    not_attempted: list[str] = field(default_factory=list)
    operations_sent: int = 0
    recovered: int = 0  # creates whose lost answer was found again by re-reading
    interrupted: bool = False
    # Changes holding a slot when the run was interrupted: those that had sent an operation
    # end in `done` or `partial`; one still waiting for the rate limit sent nothing and
    # ends in `not_attempted`.
    in_flight: list[str] = field(default_factory=list)
    total: int = 0  # changes this run had to apply
    # Why the apply log could not be written: the run then stopped as at a failure.
    log_error: str | None = None

    @property
    def ok(self) -> bool:
        stopped = self.interrupted or self.failed or self.partial or self.not_attempted
        return not stopped and self.log_error is None


class _Stop(Exception):
    """Internal: the run is stopping; do not start this operation."""


class Executor:
    def __init__(
        self,
        plan: Plan,
        *,
        helpdesk: Any = None,
        workspace: Any = None,
        locate: Locator | None = None,
        log: OperationLog | None = None,
        on_operation: Callable[[], None] | None = None,
        parallel_changes: int = PARALLEL_CHANGES,
    ) -> None:
        self.plan = plan
        self._slots = asyncio.Semaphore(max(1, parallel_changes))
        self.clients = {"helpdesk": helpdesk, "workspace": workspace}
        self.locate = locate
        self.log = log
        self.on_operation = on_operation or (lambda: None)
        self.ids: dict[str, Any] = {}
        self.report = ApplyReport()
        self._stopping = False
        # Set as each change ends, done or not: what its dependents wait for.
        self._finished = {c.address: asyncio.Event() for c in plan.to_apply}
        self._succeeded: set[str] = set()
        self._running: list[str] = []  # changes whose operations are under way

    def interrupt(self) -> None:
        """Start nothing new; what was sent finishes. Safe to call more than once."""
        if self.report.interrupted:
            return
        self.report.interrupted = True
        self.report.in_flight = list(self._running)
        self._stopping = True
        for client in self.clients.values():
            halt = getattr(client, "halt", None)  # test doubles may have none
            if halt is not None:
                halt()

    async def run(self) -> ApplyReport:
        changes = list(self.plan.to_apply)  # the asserted operations are sent too
        self.report.total = len(changes)
        forward = [c for c in changes if not c.removal]
        removals = [c for c in changes if c.removal]
        forward_addresses = {c.address for c in forward}
        await asyncio.gather(*(self._run_change(c, forward_addresses) for c in forward))
        # Removals after everything else, kind by kind in reverse order (permissions
        # before the users they name), each kind's removals concurrently. The phases are
        # the order: a removal waits for no other change. Every change comes from the
        # planner, whose kinds are the table's: each has its place in KIND_ORDER.
        for kind in sorted({c.kind for c in removals}, key=KIND_ORDER.index, reverse=True):
            await asyncio.gather(*(self._run_change(c, set()) for c in removals if c.kind == kind))
        return self.report

    async def _run_change(self, change: Change, waits_for: set[str]) -> None:
        try:
            for needed in dependencies(change) & waits_for:
                await self._finished[needed].wait()
                if needed not in self._succeeded:
                    self.report.not_attempted.append(change.address)
                    return
            async with self._slots:  # taken after the dependencies: holders never wait
                if self._stopping:
                    self.report.not_attempted.append(change.address)
                    return
                self._running.append(change.address)
                try:
                    if not await self._run_operations(change):
                        return
                finally:
                    self._running.remove(change.address)
            self._succeeded.add(change.address)
            self.report.done.append(change.address)
        finally:
            self._finished[change.address].set()

    async def _run_operations(self, change: Change) -> bool:
        """The change's operations in order, each once those before it were done; False
        when it stopped or failed."""
        for index, operation in enumerate(change.operations):
            # Before the first operation `_run_change` looked, with nothing awaited since:
            # a run stopping here has done some of this change.
            if self._stopping:
                self.report.partial.append(change.address)
                return False
            try:
                await self._perform(change, index, operation)
            except (_Stop, Halted) as stop:
                # An operation sent before the halt (a 5xx or no answer, then halted while
                # waiting to retry) may have been carried out: stopped partway, not "not
                # attempted".
                reached = isinstance(stop, Halted) and stop.reached
                (self.report.partial if index > 0 or reached else self.report.not_attempted).append(
                    change.address
                )
                return False
            except ReconcilerError as err:
                # An authentication failure too: the client refuses every later call
                # without sending it, so the run ends here with its report.
                self._stopping = True
                self.report.failed.append((change.address, str(err)))
                return False
        return True

    async def _perform(self, change: Change, index: int, operation: Operation) -> None:
        client = self.clients.get(operation.service)
        if client is None:
            raise ReconcilerError(f"the {operation.service} service is not configured")
        params = {key: self._resolve(value) for key, value in operation.params.items()}
        # The workspace's are a JSON body, or none.
        body = (params or None) if operation.service == "workspace" else params
        for attempt in range(1, RECREATE_ATTEMPTS + 1):
            started = time.perf_counter()
            try:
                answer = await client.request(
                    operation.method,
                    operation.path.removeprefix("/api"),
                    body,
                    write=True,
                    idempotent=operation.idempotent,
                )
                break
            except OutcomeUnknown as err:
                self._log(change, index, operation, "unknown", started, str(err))
                found = None
                if self.locate is not None and operation.creates:
                    found = await self.locate(change)
                if found is not None:
                    self.report.recovered += 1
                    self.report.operations_sent += 1  # it was made, once
                    self._done(change, index, operation, started, found, "recovered")
                    return
                if attempt >= RECREATE_ATTEMPTS or self._stopping:
                    raise
                # not there: creating it again makes no duplicate
            except ApiError as err:
                self._log(change, index, operation, "failed", started, err.message)
                raise
        self.report.operations_sent += 1
        created = None
        if operation.creates:
            try:
                created = _created_id(operation, answer)
            except ApiError as err:
                # Sent and done, but of no use without the id: the log still says so.
                self._log(change, index, operation, "failed", started, err.message)
                raise
        self._done(change, index, operation, started, created, "ok")

    def _done(
        self,
        change: Change,
        index: int,
        operation: Operation,
        started: float,
        created: Any,
        outcome: str,
    ) -> None:
        """An operation made: the id it created kept for the operations that name it."""
        if operation.creates:
            self.ids[operation.creates] = created
        self._log(change, index, operation, outcome, started, created=created)
        self.on_operation()

    def _resolve(self, value: Any) -> Any:
        if isinstance(value, Ref):
            if value.address not in self.ids:
                raise _Stop()
            return self.ids[value.address]
        if isinstance(value, list):
            return [self._resolve(v) for v in value]
        if isinstance(value, dict):
            return {k: self._resolve(v) for k, v in value.items()}
        return value

    def _log(
        self,
        change: Change,
        index: int,
        operation: Operation,
        outcome: str,
        started: float,
        message: str | None = None,
        created: Any = None,
    ) -> None:
        entry: dict[str, Any] = {
            "time": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
            "address": change.address,
            "action": change.action.value,
            "operation": index,
            "method": operation.method,
            "path": operation.path,
            "outcome": outcome,
            "ms": round((time.perf_counter() - started) * 1000, 1),
        }
        if message:
            entry["message"] = message
        if created is not None:
            entry["created_id"] = created
        try:
            if self.log is not None:
                self.log.record(entry)
        except LogUnwritable as err:
            if self.report.log_error is None:
                self.report.log_error = str(err)
            self._stopping = True  # the operation itself is done: only what follows stops


def _created_id(operation: Operation, answer: Any) -> Any:
    if operation.service == "workspace":
        if isinstance(answer, Mapping) and answer.get("id") is not None:
            return answer["id"]
        raise ApiError(None, operation.method, operation.path, "the answer carries no id")
    return created_id(answer, path=operation.path)
