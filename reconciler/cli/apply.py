"""`reconciler apply`: the rules of apply are `ApplySession`'s (reconciler/applying/session.py);
this passes the flags, a confirmation and a progress reporter, and prints the outcome."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import Any

import click

from reconciler.cli.changed import announce, changed_since_option, narrowed
from reconciler.cli.environments import refuse_other_environment, with_environments
from reconciler.cli.group import EXIT_INTERRUPTED
from reconciler.cli.interrupts import ApplyInterrupts, sigterm_as_interrupt
from reconciler.cli.options import (
    connection_options,
    load_manifests,
    manifest_paths,
    open_connection,
    var_files,
)
from reconciler.terminal.console import (
    ApplyReporter,
    colour,
    confirmation_text,
    print_report,
    print_stopped_at_once,
)


def _confirmation(yes: bool, connection: Any) -> Any:
    """The `confirm` callback, as Terraform asks: the plan is already on screen; this
    names the services that will change and what it will cost, and only `yes` approves."""
    from reconciler.errors import UsageError

    def confirm(plan: Any) -> bool:
        if yes:
            return True
        if not sys.stdin.isatty():
            raise UsageError(
                "there is no terminal to confirm on: add --yes to apply without asking"
            )
        click.echo(confirmation_text(plan, connection), err=True)
        answer = click.prompt(
            "  Enter a value", default="", show_default=False, err=True, prompt_suffix=": "
        )
        return bool(answer.strip() == "yes")

    return confirm


def _flags_from_saved(
    saved: Any,
    prune: bool,
    targets: tuple[str, ...],
    excludes: tuple[str, ...],
    var_file_paths: tuple[Path, ...],
) -> tuple[bool, tuple[str, ...], tuple[str, ...], tuple[Path, ...]]:
    """A saved plan's flags are the ones it was reviewed with: taken from the file; the
    same flags on the command line are allowed, different ones refused. Var files are
    never taken from the file: those given here must have the recorded digests."""
    from reconciler.errors import UsageError
    from reconciler.plans.planfile import var_file_mismatch

    inputs = saved.inputs
    mismatch = var_file_mismatch(inputs.var_files, var_file_paths)
    if mismatch is not None:
        raise UsageError(mismatch)
    contradicting = [
        name
        for name, given, recorded in (
            ("--prune", prune, inputs.prune),
            ("--target", targets, inputs.targets),
            ("--exclude", excludes, inputs.excludes),
        )
        if given and given != recorded
    ]
    if contradicting:
        raise UsageError(
            f"{', '.join(contradicting)} contradict the saved plan, which was made with "
            f"{inputs.flags()}: leave them out (the plan's own are used) or plan again"
        )
    return inputs.prune, inputs.targets, inputs.excludes, var_file_paths


def _read_saved(plan_file: Path, since: str | None) -> Any:
    """The saved plan to apply; a partial one, or one with --changed-since, is refused."""
    from reconciler.errors import UsageError
    from reconciler.plans.planfile import read_plan_file

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
                    confirm=_confirmation(yes, conn), progress=reporter, saved=saved
                )
            finally:
                interrupts.disarm()  # pragma: no mutate (equivalent: asyncio.run disarms too)


@click.command()
@with_environments("apply")
@manifest_paths
@click.option(
    "--plan",
    "plan_file",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="Apply a plan saved by `plan --out`, only if planning again now gives exactly it; "
    "its --prune/--target/--exclude are used; --var-file must give the files it was made "
    "with (compared by content).",
)
@click.option("--yes", is_flag=True, help="Do not ask for confirmation.")
@click.option("--prune", is_flag=True, help="Remove live objects missing from the manifests.")
@click.option("--force", is_flag=True, help="Apply even when the safety brake holds.")
@click.option("--target", "targets", multiple=True, metavar="KIND[/KEY]", help="As for plan.")
@click.option("--exclude", "excludes", multiple=True, metavar="KIND[/KEY]", help="As for plan.")
@click.option(
    "--lock-timeout",
    type=click.FloatRange(min=0, max=86_400),
    default=0,
    show_default=True,
    metavar="SECONDS",
    help="Wait this long for another apply to the same services to end (0: refuse at once).",
)
@click.option(
    "--log",
    "log_file",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Where to write the JSON-lines record (default .reconciler/apply-TIME.jsonl).",
)
@click.option(
    "--parallelism",
    type=click.IntRange(min=1),
    default=10,
    show_default=True,
    help="Operations in flight at once (as Terraform's); 1 runs them one at a time.",
)
@changed_since_option
@var_files
@connection_options
def apply(
    paths: tuple[Path, ...],
    var_files: tuple[Path, ...],
    plan_file: Path | None,
    yes: bool,
    prune: bool,
    force: bool,
    targets: tuple[str, ...],
    excludes: tuple[str, ...],
    lock_timeout: float,
    log_file: Path | None,
    parallelism: int,
    since: str | None,
    **connection: Any,
) -> None:
    """Plan, show, confirm, and execute, in dependency order."""
    from reconciler.applying.log import default_path
    from reconciler.applying.session import ApplyDeclined, ApplyOptions, ApplySession
    from reconciler.plans.addresses import selections

    _check_log(log_file)
    saved = None
    if plan_file is not None:
        saved = _read_saved(plan_file, since)
        refuse_other_environment(saved)
        prune, targets, excludes, var_files = _flags_from_saved(
            saved, prune, targets, excludes, var_files
        )
    selected, left_out = selections(targets, excludes)
    options = ApplyOptions(prune=prune, targets=tuple(selected), excludes=tuple(left_out),
                           force=force)  # fmt: skip
    desired, scope = narrowed(
        load_manifests(paths, var_files).desired, paths, var_files, since, prune
    )
    announce(scope)
    log_path = log_file or default_path()

    with sigterm_as_interrupt(), open_connection(**connection) as conn:
        session = ApplySession(desired, conn, options=options, log_path=log_path,
                               lock_timeout=lock_timeout, parallelism=parallelism)  # fmt: skip
        try:
            outcome = asyncio.run(_run(session, conn, yes, saved))
        except asyncio.CancelledError:
            print_stopped_at_once(log_path)
            sys.exit(EXIT_INTERRUPTED)
        except ApplyDeclined:  # as Terraform: not an error, yet not a success either
            click.echo("Apply cancelled.", err=True)
            sys.exit(1)  # documented: apply --help, docs/hardening-values.md
    if outcome.report is None:
        return
    print_report(outcome.report, log_path)
    if outcome.report.interrupted:
        sys.exit(EXIT_INTERRUPTED)
    if not outcome.report.ok:
        sys.exit(1)


def _check_log(log_file: Path | None) -> None:
    """The apply log's place is checked before any call: fail fast."""
    if log_file is not None:
        from reconciler.cli.extras import check_writable

        check_writable("--log", log_file)
