"""`apply` over several environments, after one confirmation: wave after wave, the
environments of one wave at once (at most `max_parallel`), each in its own `ApplySession`
(its lock, a fresh plan, its brake, its log). A fresh plan that differs from the one
confirmed is not applied. When an environment of a wave fails, the others of
that wave finish (nothing is cut off mid-apply) and no later wave is attempted.

Results reach `on_done` in the project's order within each wave, each whole, as soon as it
and those before it are done, so that output is never interleaved. Nothing here prints
but each environment's waits for a `429` to pass, a line each (`saying_waits`).

The waves (docs/environments.md, "Applying several environments"): each environment's
`wave: N` in reconciler.yaml, as Atlantis's `execution_order_group`. Waves go in ascending
order; a wave starts only when every environment of the one before it succeeded. Without
waves (no environment declares one), each environment is a wave of its own, in the order
the project file declares them: one after another.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from functools import partial
from pathlib import Path
from typing import Any

from reconciler.applying.executor import PARALLEL_CHANGES, ApplyReport
from reconciler.applying.session import ApplyDeclined, ApplyOptions, ApplySession
from reconciler.errors import ProblemsError, ReconcilerError
from reconciler.fleet.plans import EnvironmentRun, in_order, saying_waits
from reconciler.fleet.summary import table
from reconciler.project.load import Project


@dataclass(frozen=True)
class Wave:
    """Environments applied together: `number` is the declared wave, None without waves."""

    number: int | None
    names: tuple[str, ...]

    @property
    def label(self) -> str:
        return "-" if self.number is None else str(self.number)


def waves(project: Project, names: Sequence[str]) -> list[Wave]:
    """`names` (a selection of the project's environments) in the waves they apply in;
    within a wave, in the project's order."""
    ordered = [name for name in project.names if name in set(names)]
    declared = {name: project.environment(name).wave for name in ordered}
    if all(number is None for number in declared.values()):
        return [Wave(None, (name,)) for name in ordered]
    numbers = sorted({number for number in declared.values() if number is not None})
    return [
        Wave(number, tuple(name for name in ordered if declared[name] == number))
        for number in numbers
    ]


class Result(StrEnum):
    APPLIED = "applied"
    FAILED = "failed"
    INTERRUPTED = "interrupted"  # stopped by Ctrl-C: what was sent finished (its report)
    UNCHANGED = "nothing to apply"  # the fresh plan had nothing left to do
    NOT_ATTEMPTED = "not attempted"


class Stop:
    """Ctrl-C over the whole rollout (terminal/interrupts.ApplyInterrupts calls `interrupt`):
    every session executing starts nothing new and lets what it sent finish; an
    environment that has not begun writing does not begin (its fresh plan is declined
    before anything is written); no later wave starts."""

    def __init__(self) -> None:
        self.requested = False
        self.executing: set[ApplySession] = set()

    def interrupt(self) -> bool:
        self.requested = True
        for session in list(self.executing):
            session.interrupt()
        return True


@dataclass(frozen=True)
class ApplyRequest:
    """What every environment's apply is made with (the command line's flags)."""

    options: ApplyOptions = field(default_factory=ApplyOptions)
    log_path: Path | None = None  # each environment's log: STEM-NAME.SUFFIX beside it
    lock_timeout: float = 0
    parallelism: int = PARALLEL_CHANGES  # as `apply --parallelism` and ApplySession


@dataclass
class Applied:
    """One environment's apply: its result, its report, or why it failed."""

    name: str
    wave: Wave
    result: Result = Result.NOT_ATTEMPTED
    report: ApplyReport | None = None
    error: str | None = None
    log_path: Path | None = None
    seconds: float = 0.0


async def apply_waves(
    runs: Sequence[EnvironmentRun],
    planned: Sequence[Wave],
    request: ApplyRequest,
    *,
    max_parallel: int,
    on_done: Callable[[Applied], None] | None = None,
    transport: Any = None,
    stop: Stop | None = None,
) -> list[Applied]:
    """Apply `runs` (planned, confirmed) wave by wave; one `Applied` per run, in the
    waves' order, those after a failed (or interrupted) wave `NOT_ATTEMPTED`."""
    stop = stop or Stop()
    by_name = {run.name: run for run in runs}
    results: list[Applied] = []
    for wave in planned:
        members = [by_name[name] for name in wave.names if name in by_name]
        if stop.requested or any(item.result is Result.FAILED for item in results):
            results += [Applied(run.name, wave) for run in members]
            continue
        work = [partial(apply_environment, run, wave, request, transport, stop) for run in members]
        results += await in_order(work, max_parallel=max_parallel, on_done=on_done)
    return results


async def apply_environment(
    run: EnvironmentRun,
    wave: Wave,
    request: ApplyRequest,
    transport: Any = None,
    stop: Stop | None = None,
) -> Applied:
    """`run`'s environment applied in its own session, refusing a fresh plan that
    differs from the one shown; an error is the environment's failure."""
    stop = stop or Stop()
    item = Applied(run.name, wave, log_path=environment_log(request.log_path, run.name))
    if stop.requested:  # interrupted while it waited for its turn
        return item
    assert run.plan is not None and run.desired is not None and run.connection is not None
    shown = [change.to_dict() for change in run.plan.to_apply]
    changed = False
    session: ApplySession | None = None

    def same_as_shown(fresh: Any) -> bool:
        nonlocal changed
        changed = [change.to_dict() for change in fresh.to_apply] != shown
        if stop.requested or changed:
            return False
        assert session is not None  # made before `apply` asks
        stop.executing.add(session)
        return True

    started = time.perf_counter()
    try:
        session = ApplySession(
            run.desired,
            run.connection,
            options=request.options,
            log_path=item.log_path,
            lock_timeout=request.lock_timeout,
            parallelism=request.parallelism,
            transport=transport,
        )
        async with session:
            with saying_waits(run.name):
                outcome = await session.apply(confirm=same_as_shown)
        item.report = outcome.report
        item.result = _result(outcome.report)
    except ApplyDeclined:
        if changed:
            item.result = Result.FAILED
            item.error = "the plan changed since it was shown: not applied; plan again"
        # else interrupted before anything was written: not attempted
    except ProblemsError as exc:
        item.result, item.error = Result.FAILED, "\n".join(exc.problems)
    except ReconcilerError as exc:
        item.result, item.error = Result.FAILED, str(exc)
    finally:
        if session is not None:
            stop.executing.discard(session)
        item.seconds = time.perf_counter() - started
    return item


def _result(report: ApplyReport | None) -> Result:
    if report is None:
        return Result.UNCHANGED
    if report.interrupted:
        return Result.INTERRUPTED
    return Result.APPLIED if report.ok else Result.FAILED


def environment_log(path: Path | None, name: str) -> Path | None:
    """`apply-TIME.jsonl` -> `apply-TIME-NAME.jsonl`: one log per environment."""
    return None if path is None else path.with_name(f"{path.stem}-{name}{path.suffix}")


def apply_summary(results: Sequence[Applied]) -> str:
    """One line per environment (its wave, result, changes applied, duration), then what
    the run did: everything applied, or where it stopped and what was not attempted."""
    header = ["environment", "wave", "result", "changes", "duration"]
    rows = [
        [
            item.name,
            item.wave.label,
            item.result.value,
            "-" if item.report is None else str(len(item.report.done)),
            "-" if item.result is Result.NOT_ATTEMPTED else f"{item.seconds:.1f}s",
        ]
        for item in results
    ]
    return "\n".join([*table(header, rows, {0, 2}), _verdict(results)]) + "\n"


def _verdict(results: Sequence[Applied]) -> str:
    failed = [item for item in results if item.result is Result.FAILED]
    skipped = [item.name for item in results if item.result is Result.NOT_ATTEMPTED]
    cut = [item.name for item in results if item.result is Result.INTERRUPTED]
    if cut or (skipped and not failed):  # Ctrl-C
        rest = f"; not attempted: {', '.join(skipped)}" if skipped else ""
        stopped = f" while applying {', '.join(cut)}" if cut else ""
        return f"Interrupted{stopped}{rest}."
    if not failed:
        names = ", ".join(item.name for item in results)
        return f"Applied {len(results)} environment(s): {names}."
    rest = f"; not attempted: {', '.join(skipped)}" if skipped else ""
    names = ", ".join(item.name for item in failed)
    wave = failed[0].wave
    if wave.number is None:
        return f"Stopped at environment {names}{rest}."
    return f"Stopped after wave {wave.number} ({names} failed){rest}."
