"""`reconciler validate` and `reconciler schema`: the offline commands."""

from __future__ import annotations

from typing import Any

import click

from reconciler.cli.options import (
    annotation_options,
    environment_options,
    environments,
    flags,
    manifest_paths,
    var_files,
)


@click.command()
@environment_options
@manifest_paths
@var_files
@annotation_options
def validate(**given: Any) -> None:
    """Check manifests offline: syntax, schema, duplicates, references. No network."""
    from reconciler.fleet.dispatch import run_command
    from reconciler.run.flags import ReportFlags, ValidateFlags

    chosen = flags(ValidateFlags, given, reports=flags(ReportFlags, given))
    run_command(chosen, environments(given))


@click.command()
@click.option(
    "--markdown",
    is_flag=True,
    help="Print the field reference instead (committed as docs/manifest-reference.md).",
)
def schema(markdown: bool) -> None:
    """Print the JSON Schema of manifests (committed as schemas/manifest.schema.json)."""
    from reconciler.manifest.reference import reference_markdown
    from reconciler.manifest.schema import schema_text

    click.echo(reference_markdown() if markdown else schema_text(), nl=False)
