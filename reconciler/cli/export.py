"""`reconciler export`: manifests from the live state (reconciler/run/export.py; several
environments: reconciler/fleet/export.py)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from reconciler.cli.options import (
    connection_flags,
    connection_options,
    environments,
    export_environment_options,
    flags,
)


@click.command()
@export_environment_options
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
@click.option(
    "--scope-from",
    type=click.Path(exists=True, path_type=Path),
    metavar="PATH",
    help="Export only the settings.scope of these manifests (a file or a directory).",
)
@connection_options
def export(**given: Any) -> None:
    """Write manifests from the live state; `plan` on them then shows no change."""
    from reconciler.fleet.dispatch import run_command
    from reconciler.run.flags import ExportFlags

    chosen = flags(ExportFlags, given, connection=connection_flags(given))
    run_command(chosen, environments(given))
