"""`export --env A --env B` (or a pattern) `--out DIR`: each environment's live state
exported to its own directory, `DIR/NAME/`, as `export --env NAME --out DIR/NAME` would,
at most `--max-parallel` at once, each with its own connection (URLs, credentials, rate
limits). Without `--out` it is refused: several exports on stdout would be one stream of
documents no tool can tell apart. An environment that cannot be exported (unreachable, a
refused token) is reported and does not stop the others; exit 1. Every directory is
checked before anything is read, and every environment's wrong-tenant guard before any
call."""

from __future__ import annotations

import os
import sys
import time
from dataclasses import dataclass
from functools import partial
from pathlib import Path

import click

from reconciler.errors import ReconcilerError, UsageError
from reconciler.export.result import ExportResult
from reconciler.export.selection import Selection
from reconciler.fleet.plans import PlanRequest, connection_for, in_order, run_to_end
from reconciler.project import Target
from reconciler.run.export import check_directory, export_live, selection_of, write_directory
from reconciler.run.flags import ExportFlags
from reconciler.run.outputs import check_writable


@dataclass
class _Exported:
    name: str
    result: ExportResult | None = None
    error: str | None = None
    seconds: float = 0.0


def export_fleet(
    targets: list[Target], flags: ExportFlags, max_parallel: int, request: PlanRequest
) -> None:
    out = flags.out
    if out is None:
        names = ", ".join(target.name for target in targets)
        raise UsageError(
            f"export over several environments ({names}) needs --out DIR: each environment "
            "is written to DIR/NAME (or give one --env NAME to export to stdout)"
        )
    force = flags.force
    for target in targets:  # before reading: fail fast
        check_directory(out / target.name, force=force)
    check_writable("--out", out, directory=True)
    selection = selection_of(flags)
    include_empty = flags.include_empty
    failed: list[str] = []

    def write(done: _Exported) -> None:
        if not _write(done, out / done.name, flags.schema_ref, force):
            failed.append(done.name)

    click.echo(f"Exporting {len(targets)} environment(s)...", err=True)
    work = [partial(_export_one, target, selection, include_empty, request) for target in targets]
    run_to_end(in_order(work, max_parallel=max_parallel, on_done=write))
    if failed:
        click.echo(
            f"Error: {len(failed)} of {len(targets)} environment(s) not exported: "
            f"{', '.join(failed)}.",
            err=True,
        )
        sys.exit(1)
    click.echo(f"Exported {len(targets)} environment(s) to {out}.", err=True)


async def _export_one(
    target: Target, selection: Selection, include_empty: bool, request: PlanRequest
) -> _Exported:
    done = _Exported(target.name)
    started = time.perf_counter()
    try:
        variables = target.variables(os.environ)
        connection = connection_for(target, variables, request)
        done.result = await export_live(connection, selection, include_empty=include_empty)
    except ReconcilerError as exc:
        done.error = str(exc)
    finally:
        done.seconds = time.perf_counter() - started
    return done


def _write(done: _Exported, directory: Path, schema: str | None, force: bool) -> bool:
    """One environment's export written, or its error shown: whole, in declared order."""
    if done.error is not None:
        click.echo(f"Error: {done.name}: {done.error}", err=True)
        return False
    result = done.result
    assert result is not None  # exported, as there is no error
    for message in result.warnings:
        click.echo(f"Warning: {done.name}: {message}", err=True)
    try:
        written = write_directory(result, directory, schema=schema, force=force)
    except ReconcilerError as exc:
        click.echo(f"Error: {done.name}: {exc}", err=True)
        return False
    names = ", ".join(p.name for p in written.files)
    click.echo(f"{done.name}: exported {result.count} object(s) to {directory}: {names}.", err=True)
    return True
