"""Planning several environments at once (`plan --env '*'`): each with its own manifests,
connection, rate limiter and failure; at most `max_parallel` at a time. Results are handed
to `on_done` in the project's order, each whole, as soon as it and those before it are
done, so that output is never interleaved. A failing environment (unreachable, refused,
invalid manifests) is a result with an `error`; it never stops the others. Nothing here
prints but this: each environment says when it waits for a `429`
to pass: `env acme: waiting for a 429 to pass (9 s)` on stderr as the wait starts. With
one environment the progress line says it (terminal/progress.py); a fleet has no progress
line, and a minute of silence while a rate window passes looks like a hang.

Each environment's work runs in its own asyncio task, so an observer set there
(`clients/activity.py`'s context variable) hears that environment's clients alone.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from functools import partial
from pathlib import Path
from typing import Any, TypeVar

import click

from reconciler.applied.labels import Cause
from reconciler.clients import activity
from reconciler.clients.connection import Connection, RateSettings, Timeouts, connection_from
from reconciler.errors import ProblemsError, ReconcilerError
from reconciler.manifest.desired import DesiredState
from reconciler.manifest.validate import Validated
from reconciler.plans import Plan
from reconciler.plans.addresses import Selector
from reconciler.project.environments import Target, with_safety
from reconciler.run.inputs import read_manifests
from reconciler.session.workflow import read_and_plan

T = TypeVar("T")


@dataclass(frozen=True)
class PlanRequest:
    """What every environment's plan is made with (the command line's flags)."""

    prune: bool = False
    targets: tuple[Selector, ...] = ()
    excludes: tuple[Selector, ...] = ()
    rates: RateSettings = field(default_factory=RateSettings)
    timeouts: Timeouts = field(default_factory=Timeouts)  # --timeout
    allow_http: bool = False  # --allow-http (an environment's allow_http: true adds its own)
    ca_file: str | None = None  # --ca-file
    # `plan`: label each change drift or pending against the environment's applied mark
    # (docs/drift.md), from the live state already read.
    label: bool = False


@dataclass
class Prepared:
    """An environment's manifests and connection, or why it has none."""

    target: Target
    desired: DesiredState | None = None
    connection: Connection | None = None
    warnings: list[str] = field(default_factory=list)
    error: str | None = None
    problems: list[str] = field(default_factory=list)  # the error's, `file:line:col: ...`


@dataclass
class EnvironmentRun:
    """One environment's plan, or its error, and how long it took."""

    name: str
    plan: Plan | None = None
    error: str | None = None
    warnings: list[str] = field(default_factory=list)
    seconds: float = 0.0
    connection: Connection | None = None
    desired: DesiredState | None = None
    # The error's problems, each `file:line:column: message`, when it is manifest problems.
    problems: list[str] = field(default_factory=list)
    causes: dict[str, Cause] | None = None  # each change's label, when labelled

    def plan_json(self) -> dict[str, Any] | None:
        """The plan's `to_dict()`, each change with its `"cause"` when labelled."""
        from reconciler.run.plan import labelled

        return None if self.plan is None else labelled(self.plan.to_dict(), self.causes)


def prepare_all(
    targets: Sequence[Target],
    environ: Mapping[str, str],
    request: PlanRequest,
    *,
    connect: bool = True,
) -> list[Prepared]:
    """`prepare` for each target; environments with the same paths and var files (the
    same manifests, other URLs and credentials) share one loading of them. The
    environment is read once for all of them: `os.environ` decodes every variable each
    time it is copied, and a fleet's environment holds a few variables per tenant, so a
    copy per environment grew with the square of the fleet (issue 23)."""
    loaded: dict[tuple[tuple[Path, ...], tuple[Path, ...]], Validated] = {}
    variables = dict(environ)
    return [prepare(t, variables, request, connect=connect, loaded=loaded) for t in targets]


def prepare(
    target: Target,
    environ: Mapping[str, str],
    request: PlanRequest,
    *,
    connect: bool = True,
    loaded: dict[tuple[tuple[Path, ...], tuple[Path, ...]], Validated] | None = None,
) -> Prepared:
    """Load `target`'s manifests (its var files, its safety overrides) and, if `connect`,
    make its connection, offline; a problem is the environment's error."""
    found = Prepared(target)
    key = (target.paths, target.var_files)
    try:
        validated = (loaded or {}).get(key)
        if validated is None:
            validated = read_manifests(target.paths, target.var_files, environ, target)
            if loaded is not None:
                loaded[key] = validated
        found.warnings = list(validated.warnings)
        found.desired = with_safety(validated.desired, target)
        if connect:
            variables = target.variables(environ)
            found.connection = connection_for(target, variables, request)
    except ProblemsError as exc:
        found.error, found.problems = "\n".join(exc.problems), list(exc.problems)
    except ReconcilerError as exc:
        found.error = str(exc)
    return found


def connection_for(
    target: Target, variables: Mapping[str, str], request: PlanRequest
) -> Connection:
    """The environment's connection: its URLs and credentials, its own rate limits (else
    the command's), and the command's --timeout, --allow-http and --ca-file."""
    rates = request.rates
    own = RateSettings(
        target.rate_limit if target.rate_limit is not None else rates.general,
        target.search_rate_limit if target.search_rate_limit is not None else rates.search,
    )
    connection = connection_from(
        variables,
        rates=own,
        timeouts=request.timeouts,
        allow_http=request.allow_http or target.allow_http,
        ca_file=request.ca_file,
    )
    return replace(connection, environment=target.name)


async def plan_environments(
    prepared: Sequence[Prepared],
    request: PlanRequest,
    *,
    max_parallel: int,
    on_done: Callable[[EnvironmentRun], None] | None = None,
    transport: Any = None,
) -> list[EnvironmentRun]:
    """Every prepared environment planned, at most `max_parallel` at once (0: no limit)."""
    return await in_order(
        [partial(_plan_one, item, request, transport) for item in prepared],
        max_parallel=max_parallel,
        on_done=on_done,
    )


def run_to_end(work: Awaitable[T]) -> T:
    """`asyncio.run(work)`, its result handed back outside the loop. On Python 3.11,
    `asyncio.run` checks its Ctrl-C handler with `signal.getsignal`, which formats the
    handler, the main task with it and so the task's result: every plan and live state
    of a fleet turned into text for nothing (about 1.5 % of a 20-tenant plan)."""
    result: list[T] = []

    async def main() -> None:
        result.append(await work)

    asyncio.run(main())
    return result[0]


async def in_order(
    work: Sequence[Callable[[], Awaitable[T]]],
    *,
    max_parallel: int,
    on_done: Callable[[T], None] | None = None,
) -> list[T]:
    """Each of `work` run, at most `max_parallel` at once (0: no limit); the results in
    the order given, each handed to `on_done` as soon as it and those before it are done.
    Interrupted (Ctrl-C), the work not finished is cancelled."""
    gate = asyncio.Semaphore(max_parallel if max_parallel > 0 else len(work))

    async def one(start: Callable[[], Awaitable[T]]) -> T:
        async with gate:
            return await start()

    tasks = [asyncio.create_task(one(start)) for start in work]
    results = []
    try:
        for task in tasks:
            result = await task
            results.append(result)
            if on_done is not None:
                on_done(result)
    finally:
        for task in tasks:
            task.cancel()
    return results


async def _plan_one(item: Prepared, request: PlanRequest, transport: Any) -> EnvironmentRun:
    run = EnvironmentRun(item.target.name, warnings=list(item.warnings))
    run.connection, run.desired = item.connection, item.desired
    if item.error is not None or item.desired is None or item.connection is None:
        run.error, run.problems = item.error or "not prepared", list(item.problems)
        return run
    started = time.perf_counter()
    try:
        with saying_waits(run.name):
            outcome = await read_and_plan(
                item.desired,
                item.connection,
                prune=request.prune,
                targets=request.targets,
                excludes=request.excludes,
                transport=transport,
            )
        run.plan = outcome.plan
        if request.label:
            from reconciler.run.applied import plan_labels

            run.causes = plan_labels(
                outcome.plan, outcome.plan.to_dict, outcome.live, paths=item.target.paths,
                var_files=item.target.var_files, target=item.target, prune=request.prune,
                targets=request.targets, excludes=request.excludes,
            )  # fmt: skip
    except ReconcilerError as exc:
        run.error = str(exc)
    finally:
        run.seconds = time.perf_counter() - started
    return run


# A wait ending within this many seconds of one already said is not said again: the
# calls of one environment in flight together are answered 429 together.
SAID_ALREADY = 1.0


class EnvironmentWaits:
    """The `activity.Observer` of one environment: says each `429` wait that ends later
    than the last one said."""

    def __init__(
        self,
        name: str,
        say: Callable[[str], None],
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.name = name
        self._say = say
        self._clock = clock
        self._until = 0.0

    def call_sent(self) -> None:
        pass

    def waiting(self, seconds: float, reason: str) -> None:
        if reason != activity.THROTTLED:
            return  # the client's own rate limit: paced, not stalled
        until = self._clock() + seconds
        if until <= self._until + SAID_ALREADY:
            return
        self._until = until
        self._say(f"env {self.name}: waiting for a 429 to pass ({seconds:.0f} s)")


def _stderr(line: str) -> None:
    click.echo(line, err=True)


@contextmanager
def saying_waits(name: str, say: Callable[[str], None] = _stderr) -> Iterator[None]:
    """While the block runs (in the environment's own task), its `429` waits are said."""
    with activity.observing(EnvironmentWaits(name, say)):
        yield
