"""`reconciler validate` and `reconciler schema`: the offline commands."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from reconciler.cli.options import (
    annotation_options,
    environment_options,
    environments,
    manifest_paths,
    report_flags,
    var_files,
)


@click.command()
@environment_options
@manifest_paths
@var_files
@annotation_options
def validate(paths: tuple[Path, ...], var_files: tuple[Path, ...], **given: Any) -> None:
    """Check manifests offline: syntax, schema, duplicates, references. No network."""
    from reconciler.fleet.dispatch import run_command
    from reconciler.run.flags import ValidateFlags

    flags = ValidateFlags(paths=paths, var_files=var_files, reports=report_flags(given))
    run_command(flags, environments(given))


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
