"""`apply` over several environments, after one confirmation: wave after wave
(waves.py), the environments of one wave at once (at most `max_parallel`), each in its
own `ApplySession` (its lock, a fresh plan, its brake, its log). A fresh plan that differs
from the one confirmed is not applied. When an environment of a wave fails, the others of
that wave finish (nothing is cut off mid-apply) and no later wave is attempted.

Results reach `on_done` in the project's order within each wave, each whole, as soon as it
and those before it are done, so that output is never interleaved. Nothing here prints."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from functools import partial
from pathlib import Path
from typing import Any

from reconciler.applying.executor import ApplyReport
from reconciler.applying.session import ApplyOptions, ApplySession
from reconciler.errors import ProblemsError, ReconcilerError
from reconciler.project.fleet import EnvironmentRun, in_order
from reconciler.project.waves import Wave


class Result(StrEnum):
    APPLIED = "applied"
    FAILED = "failed"
    UNCHANGED = "nothing to apply"  # the fresh plan had nothing left to do
    NOT_ATTEMPTED = "not attempted"


@dataclass(frozen=True)
class ApplyRequest:
    """What every environment's apply is made with (the command line's flags)."""

    options: ApplyOptions = field(default_factory=ApplyOptions)
    log_path: Path | None = None  # each environment's log: STEM-NAME.SUFFIX beside it
    lock_timeout: float = 0
    parallelism: int = 10


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
) -> list[Applied]:
    """Apply `runs` (planned, confirmed) wave by wave; one `Applied` per run, in the
    waves' order, those after a failed wave `NOT_ATTEMPTED`."""
    by_name = {run.name: run for run in runs}
    results: list[Applied] = []
    failed = False
    for wave in planned:
        members = [by_name[name] for name in wave.names if name in by_name]
        if failed:
            results += [Applied(run.name, wave) for run in members]
            continue
        done = await _apply_wave(members, wave, request, max_parallel, on_done, transport)
        results += done
        failed = any(item.result is Result.FAILED for item in done)
    return results


async def _apply_wave(
    members: Sequence[EnvironmentRun],
    wave: Wave,
    request: ApplyRequest,
    max_parallel: int,
    on_done: Callable[[Applied], None] | None,
    transport: Any,
) -> list[Applied]:
    return await in_order(
        [partial(apply_environment, run, wave, request, transport) for run in members],
        max_parallel=max_parallel,
        on_done=on_done,
    )


async def apply_environment(
    run: EnvironmentRun, wave: Wave, request: ApplyRequest, transport: Any = None
) -> Applied:
    """`run`'s environment applied in its own session, refusing a fresh plan that
    differs from the one shown; an error is the environment's failure."""
    item = Applied(run.name, wave, log_path=environment_log(request.log_path, run.name))
    assert run.plan is not None and run.desired is not None and run.connection is not None
    shown = [change.to_dict() for change in run.plan.to_apply]
    changed = False

    def same_as_shown(fresh: Any) -> bool:
        nonlocal changed
        changed = [change.to_dict() for change in fresh.to_apply] != shown
        return not changed

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
            outcome = await session.apply(confirm=same_as_shown)
        item.report = outcome.report
        ok = outcome.report is None or outcome.report.ok
        item.result = Result.UNCHANGED if outcome.report is None else Result.APPLIED
        if not ok:
            item.result = Result.FAILED
    except ProblemsError as exc:
        item.result, item.error = Result.FAILED, "\n".join(exc.problems)
    except ReconcilerError as exc:
        item.result = Result.FAILED
        item.error = "the plan changed since it was shown: not applied; plan again" if changed \
            else str(exc)  # fmt: skip
    finally:
        item.seconds = time.perf_counter() - started
    return item


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
    widths = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(header)]

    def line(cells: list[str]) -> str:
        aligned = [c.rjust(w) if i in (1, 3, 4) else c.ljust(w)
                   for i, (c, w) in enumerate(zip(cells, widths, strict=True))]  # fmt: skip
        return "  ".join(aligned).rstrip()

    lines = [line(header), line(["-" * w for w in widths]), *(line(r) for r in rows)]
    return "\n".join([*lines, _verdict(results)]) + "\n"


def _verdict(results: Sequence[Applied]) -> str:
    failed = [item for item in results if item.result is Result.FAILED]
    skipped = [item.name for item in results if item.result is Result.NOT_ATTEMPTED]
    if not failed:
        names = ", ".join(item.name for item in results)
        return f"Applied {len(results)} environment(s): {names}."
    rest = f"; not attempted: {', '.join(skipped)}" if skipped else ""
    names = ", ".join(item.name for item in failed)
    wave = failed[0].wave
    if wave.number is None:
        return f"Stopped at environment {names}{rest}."
    return f"Stopped after wave {wave.number} ({names} failed){rest}."
