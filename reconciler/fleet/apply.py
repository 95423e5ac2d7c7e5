"""`apply --env A --env B` (or a pattern): after every plan is shown and none has errors,
one confirmation naming every environment that changes (and its wave); then the
environments are applied wave by wave (fleet/rollout.py): without waves one
after another in the project's order, with waves (`wave: N` in reconciler.yaml) the
environments of a wave at once. A failed environment stops the run before the next wave;
the summary says which environments were applied, failed and not attempted. A fresh plan
that differs from the one shown is not applied: what was confirmed is what runs."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

import click

from reconciler.applied.mark import NotRecorded, partial_apply
from reconciler.applying.log import default_path
from reconciler.applying.session import ApplyOptions
from reconciler.errors import UsageError
from reconciler.fleet.plans import EnvironmentRun, run_to_end
from reconciler.fleet.rollout import (
    Applied,
    ApplyRequest,
    Result,
    Wave,
    apply_summary,
)
from reconciler.fleet.summary import report_json
from reconciler.masking import write_text
from reconciler.plans.addresses import Selector
from reconciler.project import Target
from reconciler.run.applied import record_applied
from reconciler.run.apply import confirmed
from reconciler.run.flags import ApplyFlags
from reconciler.terminal.console import print_report
from reconciler.terminal.interrupts import EXIT_INTERRUPTED, ApplyInterrupts, sigterm_as_interrupt


def apply_fleet(
    runs: list[EnvironmentRun],
    flags: ApplyFlags,
    planned: list[Wave],
    max_parallel: int,
    report_file: Path | None = None,
    targets: Mapping[str, Target] | None = None,
) -> None:
    """Apply the environments of `runs` that change, in the waves `planned`; mark them."""
    shown = [(run, run.plan) for run in runs if run.plan is not None and run.plan.to_apply]
    changing = [run for run, _ in shown]
    if not changing:
        click.echo("No changes in any environment: nothing to apply.", err=True)
        mark_applied(runs, [], flags, targets or {})
        return
    held = [run.name for run, plan in shown if plan.brake and plan.brake.holds]
    if held and not flags.force:
        raise UsageError(
            f"the safety brake holds for {', '.join(held)} (see each plan): nothing "
            "applied; review the plans, then add --force to apply them anyway"
        )
    names = {run.name for run in changing}
    planned = [wave for wave in planned if names.intersection(wave.names)]
    if not confirmed(flags.yes, lambda: _question(changing, planned)):
        raise UsageError("nothing applied")
    done: list[Applied] = []

    def show(item: Applied) -> None:
        done.append(item)
        _print_applied(item)

    try:
        with sigterm_as_interrupt():
            results = run_to_end(_rollout(changing, planned, flags, max_parallel, show))
    except (KeyboardInterrupt, asyncio.CancelledError):  # stopped at once (a second Ctrl-C)
        finished = {item.name for item in done}
        left = [run.name for run in changing if run.name not in finished]
        click.echo(
            f"Stopped at once: not finished: {', '.join(left) or '(none)'} (the outcome of "
            "the operations in flight is unknown: see each environment's apply log).",
            err=True,
        )
        sys.exit(EXIT_INTERRUPTED)
    mark_applied(runs, results, flags, targets or {})
    click.echo(apply_summary(results), nl=False, err=True)
    if report_file is not None:
        write_text(report_file, report_json(runs, "apply", applied=results))
        click.echo(f"Wrote the run summary to {report_file}.", err=True)
    if any(item.result is Result.FAILED for item in results):
        sys.exit(1)
    if any(item.result in (Result.INTERRUPTED, Result.NOT_ATTEMPTED) for item in results):
        sys.exit(EXIT_INTERRUPTED)


async def _rollout(
    changing: list[EnvironmentRun],
    planned: list[Wave],
    flags: ApplyFlags,
    max_parallel: int,
    show: Callable[[Applied], None],
) -> list[Applied]:
    """The waves, with Ctrl-C armed: the first stops the rollout gracefully (nothing new
    starts, what was sent finishes), a second stops it at once."""
    from reconciler.fleet.rollout import Stop, apply_waves  # looked up when run: a test replaces it

    stop = Stop()
    task = asyncio.current_task()
    assert task is not None
    interrupts = ApplyInterrupts(stop, task)
    interrupts.arm()
    try:
        return await apply_waves(changing, planned, _request(flags), max_parallel=max_parallel,
                                 on_done=show, stop=stop)  # fmt: skip
    finally:
        interrupts.disarm()


def _question(changing: list[EnvironmentRun], planned: list[Wave]) -> str:
    by_name = {run.name: run for run in changing}
    lines = ["", f"Do you want to apply these changes to {len(changing)} environment(s)?"]
    waved = any(wave.number is not None for wave in planned)
    for wave in planned:
        members = [by_name[name] for name in wave.names if name in by_name]
        if waved:  # "at once": more than one of the wave changes
            together = " (at once)" if len(members) > 1 else ""
            lines.append(f"  wave {wave.number}{together}:")
        for run in members:
            plan, connection = run.plan, run.connection
            assert plan is not None and connection is not None  # planned, so connected
            counts = ", ".join(f"{n} to {action}" for action, n in plan.summary.items() if n)
            urls = [s.url for s in (connection.helpdesk, connection.workspace) if s]
            indent = "    " if waved else "  "
            lines.append(
                f"{indent}{run.name}: {counts or 'asserted values only'}  {' '.join(urls)}"
            )
    if waved:
        lines.append("  A failure stops the run before the next wave.")
    lines.append("  Only 'yes' will be accepted to approve.")
    return "\n".join(lines)


def _request(flags: ApplyFlags) -> ApplyRequest:
    return ApplyRequest(
        options=ApplyOptions(
            prune=flags.prune,
            targets=tuple(Selector.parse(t) for t in flags.targets),
            excludes=tuple(Selector.parse(e) for e in flags.excludes),
            force=flags.force,
        ),
        log_path=flags.log_file or default_path(),
        lock_timeout=flags.lock_timeout,
        parallelism=flags.parallelism,
    )


def _print_applied(item: Applied) -> None:
    """One environment's apply, whole: its report, or its error."""
    wave = "" if item.wave.number is None else f" (wave {item.wave.number})"
    click.echo(f"=== Applied environment {item.name}{wave}: {item.result.value}", err=True)
    if item.error is not None:
        click.echo(f"Error: {item.name}: {item.error}", err=True)
    elif item.result is Result.UNCHANGED:
        click.echo(f"{item.name}: nothing to apply any more.", err=True)
    elif item.report is not None and item.log_path is not None:
        print_report(item.report, item.log_path)
    sys.stderr.flush()


def mark_applied(
    runs: Sequence[EnvironmentRun],
    results: Sequence[Applied],
    flags: ApplyFlags,
    targets: Mapping[str, Target],
) -> None:
    """Each environment's applied mark (docs/drift.md): recorded for an environment applied
    whole (or with nothing to apply), else one line saying why not."""
    outcome = {item.name: item for item in results}
    for run in runs:
        target = targets.get(run.name)
        if target is None or run.plan is None:
            continue
        item = outcome.get(run.name)
        result = Result.UNCHANGED if item is None else item.result
        why = partial_apply(targets=flags.targets, excludes=flags.excludes,
                            failed=int(result is Result.FAILED),
                            interrupted=result is Result.INTERRUPTED)  # fmt: skip
        if why is None and result is Result.NOT_ATTEMPTED:
            why = NotRecorded("the environment was not applied")
        click.echo(f"{run.name}: ", nl=False, err=True)
        record_applied(target.paths, target.var_files, target, partial=why)
