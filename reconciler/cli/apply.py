"""`reconciler apply`: plan, show, confirm and execute."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import Any

import click

from reconciler.cli.options import (
    connection_options,
    load_manifests,
    manifest_paths,
    open_connection,
    var_files,
)
from reconciler.console import OperationsBar, Progress, colour, print_report


def _confirm(count: int, yes: bool) -> None:
    from reconciler.errors import UsageError

    if yes:
        return
    if not sys.stdin.isatty():
        raise UsageError("there is no terminal to confirm on: add --yes to apply without asking")
    noun = "change" if count == 1 else "changes"
    if not click.confirm(f"Apply these {count} {noun}?", default=False, err=True):
        raise UsageError("nothing applied")


@click.command()
@manifest_paths
@click.option(
    "--plan",
    "plan_file",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="Execute a plan saved by `plan --out`; refused when the live state has changed.",
)
@click.option("--yes", is_flag=True, help="Do not ask for confirmation.")
@click.option("--prune", is_flag=True, help="Remove live objects missing from the manifests.")
@click.option("--force", is_flag=True, help="Apply even when the safety brake holds.")
@click.option("--target", "targets", multiple=True, metavar="KIND[/KEY]", help="As for plan.")
@click.option("--exclude", "excludes", multiple=True, metavar="KIND[/KEY]", help="As for plan.")
@click.option(
    "--log",
    "log_file",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Where to write the JSON-lines record (default .reconciler/apply-TIME.jsonl).",
)
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
    log_file: Path | None,
    **connection: Any,
) -> None:
    """Plan, show, confirm, and execute, in dependency order."""
    from reconciler.applylog import ApplyLog, default_path
    from reconciler.errors import PlanHasErrors, UsageError
    from reconciler.plan import Selector
    from reconciler.render import format_text, plan_from_json
    from reconciler.safety import brake_violations
    from reconciler.workflow import ApplySession

    if plan_file is not None and (targets or excludes or prune):
        # The saved plan is what was reviewed: these would silently change nothing.
        raise UsageError("--target/--exclude/--prune belong to the saved plan: give them to `plan`")
    selected = [Selector.parse(t) for t in targets]
    left_out = [Selector.parse(e) for e in excludes]
    validated = load_manifests(paths, var_files)
    saved = None
    if plan_file is not None:
        saved = plan_from_json(plan_file.read_bytes(), source=str(plan_file))
    desired = validated.desired
    log_path = log_file or default_path()

    async def run() -> Any:
        async with ApplySession(desired, conn) as session:
            with Progress() as progress:
                to_apply, live = await session.plan(
                    prune=prune,
                    targets=selected,
                    excludes=left_out,
                    saved=saved,
                    on_read=progress.read,
                )
            click.echo(format_text(to_apply, color=colour(sys.stdout)), nl=False)
            if to_apply.errors:
                raise PlanHasErrors("the plan has errors: fix them, then apply again")
            if not to_apply.changes:
                return None
            violations = brake_violations(to_apply, live, desired.settings.safety)
            if violations and not force:
                raise UsageError(
                    "the safety brake holds (settings.safety):\n  "
                    + "\n  ".join(v.text() for v in violations)
                    + "\nReview the plan, then add --force to apply it anyway."
                )
            _confirm(len(to_apply.changes), yes)
            with ApplyLog(log_path) as log, OperationsBar(to_apply.operation_count) as bar:
                log.event("start", summary=to_apply.summary, live_digest=to_apply.live_digest)
                report = await session.execute(to_apply, log=log, on_operation=bar.advance)
                log.event(
                    "end",
                    done=len(report.done),
                    failed=len(report.failed),
                    not_attempted=len(report.not_attempted) + len(report.partial),
                    operations=report.operations_sent,
                )
            return report

    with open_connection(**connection) as conn:
        report = asyncio.run(run())
    if report is None:
        return
    print_report(report, log_path)
    if not report.ok:
        sys.exit(1)
