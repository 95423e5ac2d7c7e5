"""What a command reads before it calls anything: the manifests (with `--var-file`
values and the environment's safety settings; their warnings printed), narrowed by
`--changed-since REF` to a partial plan of what changed (planning/scope.py); and
`validate`, which reads only that."""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from reconciler.manifest.desired import DesiredState
from reconciler.manifest.validate import Validated

if TYPE_CHECKING:
    from reconciler.project import Target
    from reconciler.run.flags import ValidateFlags


def read_manifests(
    paths: Sequence[Path],
    var_file_paths: Sequence[Path],
    environ: Mapping[str, str],
    target: Target | None = None,
) -> Validated:
    """The manifests validated with --var-file values; for an environment, its var files
    read only inside its repository and no value naming a credential variable."""
    from reconciler.manifest.validate import validate_manifests
    from reconciler.manifest.varfiles import load_var_files

    repository = target.root if target is not None else None
    secrets = target.credential_variables if target is not None else frozenset()
    variables = (
        load_var_files(list(var_file_paths), repository=repository) if var_file_paths else None
    )
    return validate_manifests(list(paths), environ, variables, credential_variables=secrets)


def load_manifests(
    paths: Sequence[Path], var_file_paths: Sequence[Path], target: Target | None = None
) -> Validated:
    """Load and validate the manifests (with --var-file values), print the warnings."""
    result = read_manifests(paths, var_file_paths, os.environ, target)
    if target is not None:  # the environment's own safety settings (reconciler.yaml)
        from reconciler.project.environments import with_safety

        result = replace(result, desired=with_safety(result.desired, target))
    for message in result.warnings:
        click.echo(f"Warning: {message}", err=True)
    return result


def run_validate(flags: ValidateFlags, target: Target | None = None) -> None:
    """`validate`: the manifests checked offline, the findings reported, the count said."""
    from reconciler.report.files import reported

    reports = flags.reports
    with reported(reports.annotations, reports.codequality, flags.paths) as findings:
        validated = load_manifests(flags.paths, flags.var_files, target)
        findings.problems(warnings=validated.warnings)
    desired = validated.desired
    count = sum(len(desired.entries(kind)) for kind in desired.kinds_used)
    click.echo(f"Valid: {count} objects in {len(desired.files)} file(s).", err=True)


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
    from reconciler.manifest.validate import validate_manifests
    from reconciler.manifest.varfiles import load_var_files

    variables = load_var_files(list(var_file_paths)) if var_file_paths else None

    def load(paths: Sequence[Path]) -> DesiredState:
        return validate_manifests(list(paths), os.environ, variables).desired

    return load


def announce(scope: Any) -> None:
    """Say on stderr what the plan covers (the plan itself carries it too)."""
    if scope is not None:
        click.echo(scope.describe(), err=True)
