"""`reconciler validate` and `reconciler schema`: the offline commands."""

from __future__ import annotations

from pathlib import Path

import click

from reconciler.cli.options import load_manifests, manifest_paths, var_files
from reconciler.cli.reports import annotation_options, reported


@click.command()
@manifest_paths
@var_files
@annotation_options
def validate(
    paths: tuple[Path, ...],
    var_files: tuple[Path, ...],
    annotations: str | None,
    codequality: Path | None,
) -> None:
    """Check manifests offline: syntax, schema, duplicates, references. No network."""
    with reported(annotations, codequality, paths) as findings:
        validated = load_manifests(paths, var_files)
        findings.problems(warnings=validated.warnings)
    desired = validated.desired
    count = sum(len(desired.entries(kind)) for kind in desired.kinds_used)
    click.echo(f"Valid: {count} objects in {len(desired.files)} file(s).", err=True)


@click.command()
@click.option(
    "--markdown",
    is_flag=True,
    help="Print the field reference instead (committed as docs/manifest-reference.md).",
)
def schema(markdown: bool) -> None:
    """Print the JSON Schema of manifests (committed as schemas/manifest.schema.json)."""
    from reconciler.manifest import schema_text
    from reconciler.manifest.reference import reference_markdown

    click.echo(reference_markdown() if markdown else schema_text(), nl=False)
