"""`export` for one environment: the live state written as manifests, one file per kind
into `--out DIR`, or one manifest on stdout."""

from __future__ import annotations

import asyncio

import click

from reconciler.project import Target
from reconciler.run.connect import open_connection
from reconciler.run.flags import ExportFlags
from reconciler.run.outputs import check_writable
from reconciler.terminal.console import Progress


def run_export(flags: ExportFlags, target: Target | None = None) -> None:
    from reconciler.export.output import check_directory, write_directory
    from reconciler.export.run import export_live
    from reconciler.export.selection import Selection, parse_rule_ids

    selection = Selection.build(kinds=flags.kinds, targets=flags.targets,
                                excludes=flags.excludes,
                                rule_ids=parse_rule_ids(flags.rule_ids),
                                scope_from=flags.scope_from)  # fmt: skip
    out = flags.out
    if out is not None:
        check_directory(out, force=flags.force)  # before reading: fail fast
        check_writable("--out", out, directory=True)
    with open_connection(flags.connection, target) as conn, Progress() as progress:
        result = asyncio.run(export_live(conn, selection, include_empty=flags.include_empty,
                                         on_read=progress.read))  # fmt: skip
    for message in result.warnings:
        click.echo(f"Warning: {message}", err=True)
    if out is None:
        click.echo(result.document(flags.schema_ref or "manifest.schema.json"), nl=False)
        click.echo(f"Exported {result.count} object(s).", err=True)
        return
    written = write_directory(result, out, schema=flags.schema_ref, force=flags.force)
    names = ", ".join(p.name for p in written.files)
    click.echo(f"Exported {result.count} object(s) to {out}: {names}.", err=True)
    if written.others:
        others = ", ".join(str(p.relative_to(out)) for p in written.others)
        click.echo(
            f"Warning: {out} also holds other manifests, left as they were, which `plan "
            f"{out}` reads too: {others}",
            err=True,
        )
