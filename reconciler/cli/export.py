"""`reconciler export`: manifests from the live state."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import click

from reconciler.cli.environments import with_environments
from reconciler.cli.options import connection_options, open_connection
from reconciler.terminal.console import Progress


@click.command()
@with_environments("export")
@click.option(
    "--out",
    type=click.Path(file_okay=False, path_type=Path),
    help="Write one file per kind into this directory (default: one manifest on stdout).",
)
@click.option(
    "--kinds",
    multiple=True,
    metavar="KIND[,KIND...]",
    help="Only these kinds (repeatable or comma-separated; default: every kind whose "
    "service is configured, automation_rules only with --rule-ids).",
)
@click.option(
    "--target", "targets", multiple=True, metavar="KIND[/KEY]", help="Only these objects."
)
@click.option(
    "--exclude", "excludes", multiple=True, metavar="KIND[/KEY]", help="Leave these objects out."
)
@click.option(
    "--rule-ids",
    multiple=True,
    metavar="ID[,ID...]",
    help="The automation rules to export (the API cannot list them).",
)
@click.option(
    "--include-empty",
    is_flag=True,
    help='Also write empty fields ("", [], null), so that the manifests manage them too.',
)
@click.option(
    "--schema",
    "schema_ref",
    metavar="PATH|URL",
    help="What the yaml-language-server comment names (default: manifest.schema.json, "
    "written next to the manifests).",
)
@click.option(
    "--force", is_flag=True, help="Overwrite the export's files in a directory with manifests."
)
@connection_options
def export(
    out: Path | None,
    kinds: tuple[str, ...],
    targets: tuple[str, ...],
    excludes: tuple[str, ...],
    rule_ids: tuple[str, ...],
    include_empty: bool,
    schema_ref: str | None,
    force: bool,
    **connection: Any,
) -> None:
    """Write manifests from the live state; `plan` on them then shows no change."""
    from reconciler.export import (
        Selection,
        check_directory,
        export_live,
        parse_rule_ids,
        write_directory,
    )

    selection = Selection.build(
        kinds=kinds, targets=targets, excludes=excludes, rule_ids=parse_rule_ids(rule_ids)
    )
    if out is not None:
        from reconciler.cli.extras import check_writable

        check_directory(out, force=force)  # before reading: fail fast
        check_writable("--out", out, directory=True)
    with open_connection(**connection) as conn, Progress() as progress:
        result = asyncio.run(
            export_live(conn, selection, include_empty=include_empty, on_read=progress.read)
        )
    for message in result.warnings:
        click.echo(f"Warning: {message}", err=True)
    if out is None:
        click.echo(result.document(schema_ref or "manifest.schema.json"), nl=False)
        click.echo(f"Exported {result.count} object(s).", err=True)
        return
    written = write_directory(result, out, schema=schema_ref, force=force)
    names = ", ".join(p.name for p in written.files)
    click.echo(f"Exported {result.count} object(s) to {out}: {names}.", err=True)
    if written.others:
        others = ", ".join(str(p.relative_to(out)) for p in written.others)
        click.echo(
            f"Warning: {out} also holds other manifests, left as they were, which `plan "
            f"{out}` reads too: {others}",
            err=True,
        )
