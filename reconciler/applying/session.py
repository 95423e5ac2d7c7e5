"""`ApplySession`: one apply, with its rules inside the library (as octoDNS's `Manager.sync`
keeps them), so that every caller gets them, not only the CLI:

1. the lock of every service it may write to is taken first (`applying/lock.py`), and held
   until the session ends: two applies to one helpdesk never interleave;
2. the live state is read and the plan made afresh, with the brake's verdict on it;
   a saved plan (`plans/planfile/`) is executed only when the fresh one equals it;
3. a plan with errors is refused; the safety brake holds unless `force`;
4. `confirm(plan)` is asked; only then is anything written;
5. the apply log gets a start record, one record per operation, and an end record.

The caller passes a `confirm` callback and an `ApplyProgress` (the CLI's draws a spinner,
the plan and a bar; the default shows nothing). Nothing here prints.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from contextlib import AsyncExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

import httpx

from reconciler.applying.executor import PARALLEL_CHANGES, ApplyReport, Executor
from reconciler.applying.lock import ApplyLock
from reconciler.applying.log import ApplyLog, LogUnwritable, default_path
from reconciler.clients.connection import Connection
from reconciler.clients.urls import service_address
from reconciler.errors import PlanHasErrors, ReconcilerError, StalePlanError
from reconciler.kinds.register import LOCATORS
from reconciler.manifest.desired import DesiredState
from reconciler.plans import Change, Plan
from reconciler.plans.addresses import Selector
from reconciler.plans.planfile import SavedPlan, differences, manifests_digest
from reconciler.session.workflow import (
    Clients,
    check_services,
    judged_plan,
    open_clients,
    read_state,
)


class BrakeHolds(ReconcilerError):
    """The safety brake holds (settings.safety): nothing applied without `force`."""


class ApplyDeclined(ReconcilerError):
    """The confirmation was declined: nothing applied."""


@dataclass(frozen=True)
class ApplyOptions:
    """What shapes the plan an apply executes, and whether the brake may be overridden."""

    prune: bool = False
    targets: tuple[Selector, ...] = ()
    excludes: tuple[Selector, ...] = ()
    force: bool = False


class ApplyProgress(Protocol):
    """What an apply reports as it goes (the CLI's `console.ApplyReporter` draws it)."""

    def read(self, kind: str) -> None:
        """The live state of `kind` has been read."""

    def planned(self, plan: Plan) -> None:
        """The plan about to be checked and confirmed (with the brake's verdict)."""

    def started(self, plan: Plan) -> None:
        """The first write is about to be sent."""

    def operation_done(self) -> None:
        """One more operation has been sent and answered."""

    def finished(self, report: ApplyReport) -> None:
        """The run has ended (`report.ok` or not)."""


class SilentProgress:
    """An `ApplyProgress` that shows nothing: the default for callers from Python."""

    def read(self, kind: str) -> None:
        pass

    def planned(self, plan: Plan) -> None:
        pass

    def started(self, plan: Plan) -> None:
        pass

    def operation_done(self) -> None:
        pass

    def finished(self, report: ApplyReport) -> None:
        pass


@dataclass(frozen=True)
class ApplyOutcome:
    plan: Plan
    report: ApplyReport | None  # None: nothing to apply
    log_path: Path | None


Confirm = Callable[[Plan], bool]


class ApplySession:
    """`async with ApplySession(desired, connection) as session:
    outcome = await session.apply(confirm=...)`. Outside `async with` (before it, or
    after) it holds no lock and no clients: `plan` and `apply` refuse with a
    `RuntimeError`."""

    def __init__(
        self,
        desired: DesiredState,
        connection: Connection,
        *,
        options: ApplyOptions = ApplyOptions(),
        log_path: Path | None = None,
        lock_timeout: float = 0,
        lock_directory: Path | None = None,
        transport: httpx.AsyncBaseTransport | None = None,
        parallelism: int = PARALLEL_CHANGES,
    ) -> None:
        # `parallelism` (`apply --parallelism`): operations in flight, and requests in
        # flight per client while reading.
        if parallelism < 1:
            raise ValueError("parallelism must be at least 1")
        self.desired = desired
        self.connection = connection
        self.options = options
        self.log_path = log_path
        self.transport = transport
        self.parallelism = parallelism
        self._lock = ApplyLock(_service_urls(connection), timeout=lock_timeout,
                               directory=lock_directory)  # fmt: skip
        self._stack = AsyncExitStack()
        self.clients: Clients | None = None  # set while the session is open
        self._executor: Executor | None = None

    async def __aenter__(self) -> ApplySession:
        check_services(self.desired, self.connection, self.options.excludes)
        try:
            self._stack.enter_context(self._lock)  # before anything is read
            self.clients = await self._stack.enter_async_context(
                open_clients(
                    self.connection,
                    read_only=False,
                    transport=self.transport,
                    max_concurrency=self.parallelism,
                )
            )
        except BaseException:
            await self._stack.aclose()
            raise
        return self

    async def __aexit__(self, *exc: object) -> None:
        self.clients = None
        await self._stack.aclose()

    async def apply(
        self,
        *,
        confirm: Confirm,
        progress: ApplyProgress | None = None,
        saved: SavedPlan | None = None,
    ) -> ApplyOutcome:
        """Plan afresh (or check `saved` against a fresh plan), enforce the rules, ask,
        execute. Raises `StalePlanError`, `PlanHasErrors`, `BrakeHolds`, `ApplyDeclined`
        before anything is written."""
        progress = progress or SilentProgress()
        if saved is not None:
            self._check_saved_inputs(saved)
        to_apply = await self.plan(on_read=progress.read)
        if saved is not None:
            _check_saved_changes(saved, to_apply)
        progress.planned(to_apply)
        if to_apply.errors:
            raise PlanHasErrors("the plan has errors: fix them, then apply again")
        if not to_apply.to_apply:
            return ApplyOutcome(to_apply, None, None)
        if to_apply.brake is not None and to_apply.brake.holds and not self.options.force:
            raise BrakeHolds(
                "the safety brake holds (settings.safety):\n  "
                + "\n  ".join(to_apply.brake.held)
                + "\nReview the plan, then add --force to apply it anyway."
            )
        # Only asserted operations (values the API cannot show, sent every time) change
        # nothing a plan can show: nothing to confirm.
        if to_apply.changes and not confirm(to_apply):
            raise ApplyDeclined("nothing applied")
        log_path = self.log_path or default_path()
        progress.started(to_apply)
        report = await self._execute(to_apply, log_path, progress)
        progress.finished(report)
        return ApplyOutcome(to_apply, report, log_path)

    def interrupt(self) -> bool:
        """The first Ctrl-C while executing: start nothing new, let what was sent finish
        (the outcome's report then says `interrupted`). False when nothing is executing:
        nothing has been written, and the caller may stop at once."""
        if self._executor is None:
            return False
        self._executor.interrupt()
        return True

    async def plan(self, *, on_read: Callable[[str], None] | None = None) -> Plan:
        """The plan this session would execute, made now, with the brake's verdict."""
        options = self.options
        live = await read_state(self.desired, self._opened(), prune=options.prune, on_read=on_read)
        return judged_plan(
            self.desired,
            live,
            prune=options.prune,
            targets=options.targets,
            excludes=options.excludes,
        )

    def _opened(self) -> Clients:
        """The clients; outside `async with` there are none, and no lock either: planning
        without them would read nothing and find nothing to apply."""
        if self.clients is None:
            raise RuntimeError("the apply session is not open: use it inside `async with`")
        return self.clients

    def _check_saved_inputs(self, saved: SavedPlan) -> None:
        inputs, options = saved.inputs, self.options
        if (
            inputs.prune != options.prune
            or _selectors(inputs.targets) != options.targets
            or _selectors(inputs.excludes) != options.excludes
        ):
            raise StalePlanError(
                f"this session's flags differ from those the plan was made with "
                f"({inputs.flags()}): apply it with the same flags"
            )
        if inputs.manifests_digest != manifests_digest(self.desired):
            raise StalePlanError(
                "the manifests (after variables) differ from those the plan was made from. "
                "Nothing was applied: run `reconciler plan` again (with --out), review it, "
                "and apply the new plan"
            )

    async def _execute(
        self, to_apply: Plan, log_path: Path, progress: ApplyProgress
    ) -> ApplyReport:
        clients = self._opened()

        async def locate(change: Change) -> Any:
            finder = LOCATORS.get(change.kind)
            if finder is None:
                return None
            return await finder(change, clients.helpdesk, clients.workspace, self.desired)

        with ApplyLog(log_path) as log:
            log.event("start", summary=to_apply.summary, live_digest=to_apply.live_digest)
            report: ApplyReport | None = None
            executor = self._executor = Executor(
                to_apply,
                helpdesk=clients.helpdesk,
                workspace=clients.workspace,
                locate=locate,
                log=log,
                on_operation=progress.operation_done,
                parallel_changes=self.parallelism,
            )
            try:
                report = await executor.run()
            finally:
                self._executor = None
                # Cut short (a second Ctrl-C cancels the run): what the report knew then.
                _end(log, report or executor.report, cut=report is None)
        return report


def _check_saved_changes(saved: SavedPlan, fresh: Plan) -> None:
    """A saved plan is a reviewed intent: executed only when a plan made now is exactly
    it, and then it is the fresh plan's operations that are sent, never the file's."""
    found = differences(saved, fresh)
    if found:
        raise StalePlanError(
            "the saved plan is not what a plan made now would do (the live state or the "
            "plan file changed since it was made):\n  "
            + "\n  ".join(found)
            + "\nNothing was applied: run `reconciler plan` again (with --out), review it, "
            "and apply the new plan."
        )


def _selectors(texts: Sequence[str]) -> tuple[Selector, ...]:
    return tuple(Selector.parse(t) for t in texts)


def _service_urls(connection: Connection) -> list[str]:
    """The addresses the apply lock is keyed on, normalised (`service_address`)."""
    services = (
        ("helpdesk", connection.helpdesk),
        ("workspace", connection.workspace),
    )
    return [service_address(conn.url, name) for name, conn in services if conn is not None]


def _end(log: ApplyLog, report: ApplyReport, *, cut: bool) -> None:
    """The end record, if the log still takes it: a full disk is reported with the run's
    outcome rather than in place of it."""
    if report.log_error is not None:
        return  # a line could not be written: the log ends at its last whole one
    try:
        log.event("end", **_end_record(report, cut=cut))
    except LogUnwritable as err:
        report.log_error = str(err)


def _end_record(report: ApplyReport, *, cut: bool = False) -> dict[str, Any]:
    """The apply log's last record. `cut`: the run was stopped at once (cancelled, or
    crashed); the operations in flight then have no record of their outcome."""
    stopped = "stopped" if not report.ok else "ok"
    settled = {*report.done, *report.partial}
    # What the printed summary says, in numbers: a change stopped partway is not "not
    # attempted", and one that held a slot but sent nothing was not in flight.
    in_flight = [a for a in report.in_flight if cut or a in settled]
    not_attempted = len(report.not_attempted)
    if cut:  # the changes never started have no record yet: all but those accounted for
        failed = {address for address, _ in report.failed}
        known = settled | failed | set(in_flight) | set(report.not_attempted)
        not_attempted += max(0, report.total - len(known))
    record: dict[str, Any] = {
        "result": "interrupted" if cut or report.interrupted else stopped,
        "done": len(report.done),
        "failed": len(report.failed),
        "partial": len(report.partial),
        "not_attempted": not_attempted,
        "operations": report.operations_sent,
    }
    if report.interrupted or cut:
        record["in_flight"] = in_flight
        record["stopped_at_once"] = cut
    return record
