"""`--changed-since REF` on plan and apply: a partial plan of what changed (run/scope.py)."""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import click

from reconciler.manifest import DesiredState

changed_since_option = click.option(
    "--changed-since",
    "since",
    metavar="REF",
    help="Plan only the entries added or changed since this git revision, and those they "
    "name (a partial plan: it removes nothing).",
)


def narrowed(
    desired: DesiredState,
    paths: Sequence[Path],
    var_file_paths: Sequence[Path],
    since: str | None,
    prune: bool,
) -> tuple[DesiredState, Any]:
    """The desired state to plan, and the scope (`Scope`) when `since` is given."""
    from reconciler.errors import UsageError
    from reconciler.run.scope import changed_since

    if since is None:
        return desired, None
    if prune:
        raise UsageError("--prune removes what the manifests leave out: it needs the full plan, "
                         "without --changed-since")  # fmt: skip
    return changed_since(since, paths, desired, _loader(var_file_paths))


def _loader(var_file_paths: Sequence[Path]) -> Callable[[Sequence[Path]], DesiredState]:
    from reconciler.manifest import validate_manifests
    from reconciler.manifest.varfiles import load_var_files

    variables = load_var_files(list(var_file_paths)) if var_file_paths else None

    def load(paths: Sequence[Path]) -> DesiredState:
        return validate_manifests(list(paths), os.environ, variables).desired

    return load


def announce(scope: Any) -> None:
    """Say on stderr what the plan covers (the plan itself carries it too)."""
    if scope is not None:
        click.echo(scope.describe(), err=True)
