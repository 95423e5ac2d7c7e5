"""`apply` for one environment: the rules of apply are `ApplySession`'s
(reconciler/applying/session.py); this reads a saved plan (`--plan`) and takes its flags,
asks for the confirmation, reports progress, arms Ctrl-C while operations run, prints
the outcome, and records the applied mark (docs/drift.md). Exits 1 when a change failed
or the confirmation was declined, 130 when interrupted."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import click

from reconciler.applied.mark import NotRecorded, partial_apply
from reconciler.applying.log import default_path
from reconciler.applying.session import ApplyDeclined, ApplyOptions, ApplySession
from reconciler.errors import UsageError
from reconciler.plans.addresses import selections
from reconciler.plans.planfile import read_plan_file, var_file_mismatch
from reconciler.project import Target
from reconciler.run.applied import record_applied
from reconciler.run.connect import open_connection
from reconciler.run.flags import ApplyFlags
from reconciler.run.inputs import announce, load_manifests, narrowed
from reconciler.run.outputs import check_writable
from reconciler.terminal.console import (
    ApplyReporter,
    colour,
    confirmation_text,
    print_report,
    print_stopped_at_once,
)
from reconciler.terminal.interrupts import EXIT_INTERRUPTED, ApplyInterrupts, sigterm_as_interrupt


def run_apply(flags: ApplyFlags, target: Target | None = None) -> None:
    if flags.log_file is not None:  # the apply log's place, before any call: fail fast
        check_writable("--log", flags.log_file, appended=True)
    saved = None
    if flags.plan_file is not None:
        saved = _read_saved(flags.plan_file, flags.since)
        refuse_other_environment(saved, target)
        flags = _flags_from_saved(saved, flags)
    selected, left_out = selections(flags.targets, flags.excludes)
    options = ApplyOptions(prune=flags.prune, targets=tuple(selected), excludes=tuple(left_out),
                           force=flags.force)  # fmt: skip
    loaded = load_manifests(flags.paths, flags.var_files, target).desired
    desired, scope = narrowed(loaded, flags.paths, flags.var_files, flags.since, flags.prune)
    announce(scope)
    log_path = flags.log_file or default_path()

    with sigterm_as_interrupt(), open_connection(flags.connection, target) as conn:
        session = ApplySession(desired, conn, options=options, log_path=log_path,
                               lock_timeout=flags.lock_timeout,
                               parallelism=flags.parallelism)  # fmt: skip
        try:
            outcome = asyncio.run(_run(session, conn, flags.yes, saved))
        except asyncio.CancelledError:
            print_stopped_at_once(log_path)
            sys.exit(EXIT_INTERRUPTED)
        except ApplyDeclined:  # as Terraform: not an error, yet not a success either
            click.echo("Apply cancelled.", err=True)
            sys.exit(1)  # documented: apply --help, docs/hardening-values.md
    report = outcome.report
    if report is not None:
        print_report(report, log_path)
    _mark_applied(flags, target, report, saved)
    if report is not None and report.interrupted:
        sys.exit(EXIT_INTERRUPTED)
    if report is not None and not report.ok:
        sys.exit(1)


def _mark_applied(flags: ApplyFlags, target: Target | None, report: Any, saved: Any) -> None:
    """The applied mark (docs/drift.md): the commit applied, after a whole, successful
    apply (none to make counts: live is as the manifests say); else one line why not."""
    partial = partial_apply(
        targets=flags.targets,
        excludes=flags.excludes,
        failed=0 if report is None else len(report.failed) + len(report.partial),
        interrupted=report is not None and (report.interrupted or bool(report.not_attempted)),
    )
    if flags.since is not None:
        partial = NotRecorded("a partial apply (--changed-since) applies part of the commit")
    commit = None
    if saved is not None:
        commit = saved.inputs.commit
        if commit is None and partial is None:
            partial = NotRecorded("the saved plan names no commit (its manifests were not "
                                  "committed when it was made)")  # fmt: skip
    record_applied(flags.paths, flags.var_files, target, commit=commit, partial=partial)


def refuse_other_environment(saved: Any, target: Target | None) -> None:
    """A saved plan is applied only for the environment it was made for."""
    recorded = saved.inputs.environment
    running = None if target is None else target.name
    if recorded != running:
        made = f"environment {recorded}" if recorded else "no environment"
        now = f"--env {running}" if running else "no --env"
        raise UsageError(
            f"the saved plan was made for {made}, and this apply runs with {now}: "
            "apply it for the environment it was made for, or plan again"
        )


def confirmed(yes: bool, question: Callable[[], str]) -> bool:
    """As Terraform asks: the plan is already on screen; `question` names what will
    change, and only `yes` approves."""
    if yes:
        return True
    if not sys.stdin.isatty():
        raise UsageError("there is no terminal to confirm on: add --yes to apply without asking")
    click.echo(question(), err=True)
    answer = click.prompt(
        "  Enter a value", default="", show_default=False, err=True, prompt_suffix=": "
    )
    return bool(answer.strip() == "yes")


def _flags_from_saved(saved: Any, flags: ApplyFlags) -> ApplyFlags:
    """A saved plan's flags are the ones it was reviewed with: taken from the file; the
    same flags on the command line are allowed, different ones refused. Var files are
    never taken from the file: those given here must have the recorded digests."""
    inputs = saved.inputs
    mismatch = var_file_mismatch(inputs.var_files, flags.var_files)
    if mismatch is not None:
        raise UsageError(mismatch)
    contradicting = [
        name
        for name, given, recorded in (
            ("--prune", flags.prune, inputs.prune),
            ("--target", flags.targets, inputs.targets),
            ("--exclude", flags.excludes, inputs.excludes),
        )
        if given and given != recorded
    ]
    if contradicting:
        raise UsageError(
            f"{', '.join(contradicting)} contradict the saved plan, which was made with "
            f"{inputs.flags()}: leave them out (the plan's own are used) or plan again"
        )
    return replace(flags, prune=inputs.prune, targets=inputs.targets, excludes=inputs.excludes)


def _read_saved(plan_file: Path, since: str | None) -> Any:
    """The saved plan to apply; a partial one, or one with --changed-since, is refused."""
    if since is not None:
        raise UsageError("--changed-since belongs to `plan`: a saved plan is applied whole")
    saved = read_plan_file(plan_file)
    if saved.plan.scope is not None and saved.plan.scope.get("partial"):
        raise UsageError(
            f"{plan_file} is a partial plan (--changed-since): apply the changes with "
            "`apply --changed-since REF`, which plans them again, or save a full plan"
        )
    return saved


async def _run(session: Any, conn: Any, yes: bool, saved: Any) -> Any:
    """The session, with a confirmation, a progress reporter and interrupts armed while
    operations run."""
    async with session:
        task = asyncio.current_task()
        assert task is not None
        interrupts = ApplyInterrupts(session, task)
        reporter = ApplyReporter(
            color=colour(sys.stdout),
            per_minute=conn.rates.general if conn.helpdesk is not None else 0,
            on_start=interrupts.arm,
            on_end=interrupts.disarm,
        )
        with reporter:
            try:
                return await session.apply(
                    # the services that will change and what it will cost
                    confirm=lambda plan: confirmed(yes, lambda: confirmation_text(plan, conn)),
                    progress=reporter,
                    saved=saved,
                )
            finally:
                interrupts.disarm()
