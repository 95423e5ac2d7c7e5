"""`reconciler environments`: the environments of the project file, `reconciler.yaml`
(reconciler/project/, docs/environments.md), listed for a person or a CI matrix. `--env`
on the other commands is reconciler/fleet/dispatch.py's."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import click

from reconciler.cli.options import project_option


@click.command("environments")
@project_option
@click.option("--env", "envs", multiple=True, metavar="PATTERN", help="Only these (default: all).")
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["text", "json"]),
    default="text",
    show_default=True,
    help="json: a list for a CI matrix (name, paths, var_files, URLs, credential variables).",
)
@click.option(
    "--affected-by",
    "changed",
    multiple=True,
    metavar="FILE",
    help="Only the environments a change to FILE can affect (under their paths, their var "
    "files, or the project file); repeatable; '-' reads the names from stdin, one a line "
    "(git diff --name-only BASE | reconciler environments --affected-by -).",
)
@click.option("--schema", is_flag=True, help="Print the JSON Schema of reconciler.yaml instead.")
def environments(
    project_file: Path | None, envs: tuple[str, ...], fmt: str, changed: tuple[str, ...],
    schema: bool,
) -> None:  # fmt: skip
    """List the environments of the project file (reconciler.yaml)."""
    from reconciler.project import project_schema_text
    from reconciler.project.environments import listing_text, listings

    if schema:
        click.echo(project_schema_text(), nl=False)
        return
    rows = listings(
        project_file, envs, [Path(f) for f in _changed_names(changed)] if changed else None
    )
    if fmt == "json":
        click.echo(json.dumps(rows, indent=2, ensure_ascii=False))
        return
    click.echo(listing_text(rows), nl=False)
    sys.stdout.flush()


def _changed_names(given: tuple[str, ...]) -> list[str]:
    names = [name for name in given if name != "-"]
    if "-" in given:
        names += [line.strip() for line in sys.stdin if line.strip()]
    return names
