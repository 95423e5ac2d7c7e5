"""The applied mark around `plan` and `apply` (docs/drift.md): after a whole, successful
apply, record the commit applied; in a plan, label each change drift or pending against
the manifests of that commit, planned against the live state already read (no API call).
Each failure is one line on stderr, never an error of the command."""

from __future__ import annotations

import os
import re
import shutil
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import click

from reconciler.applied import mark
from reconciler.applied.compare import Labelled, Snapshot, labels_for
from reconciler.applied.labels import Cause, fails
from reconciler.applied.mark import Commit, Unknown, applied_commit, clean_head
from reconciler.kinds.register import RESOURCES
from reconciler.live import LiveState
from reconciler.manifest.validate import validate_manifests
from reconciler.manifest.varfiles import load_var_files
from reconciler.planning.plan import plan
from reconciler.plans import Plan
from reconciler.plans.addresses import Selector
from reconciler.project import Target
from reconciler.project.environments import with_safety


def source_paths(
    paths: Sequence[Path], var_files: Sequence[Path], target: Target | None
) -> list[Path]:
    """Every file a run reads its desired state from: the manifest paths, the var files,
    and the project file of an environment (its safety settings and paths)."""
    found = [*paths, *var_files]
    if target is not None:
        # `where` is `PATH:LINE:COLUMN` (or the path alone): the project file.
        project = Path(re.sub(r":\d+:\d+$", "", target.where))
        if project.is_file() and project not in found:
            found.append(project)
    return found


def environment_of(target: Target | None) -> str | None:
    return None if target is None else target.name


def record_applied(
    paths: Sequence[Path],
    var_files: Sequence[Path],
    target: Target | None,
    *,
    commit: str | None = None,
    partial: Any = None,
) -> None:
    """Record the applied commit (HEAD when clean, or a saved plan's `commit`), or say in
    one line why not. `partial`: a `NotRecorded` from `mark.partial_apply`, when the apply
    was not whole."""
    outcome = partial or mark.record(
        Path.cwd(), source_paths(paths, var_files, target), environment_of(target), commit
    )
    click.echo(outcome.describe(), err=True)


def saved_commit(paths: Sequence[Path], var_files: Sequence[Path], target: Target | None) -> Any:
    """What `plan --out` saves as `made_from.commit`: HEAD's id when the manifests are
    committed as they are, else None."""
    found = clean_head(Path.cwd(), source_paths(paths, var_files, target))
    return found.id if isinstance(found, Commit) else None


def plan_labels(
    result: Plan,
    real: Callable[[], Mapping[str, Any]],
    live: LiveState,
    *,
    paths: Sequence[Path],
    var_files: Sequence[Path],
    target: Target | None,
    prune: bool,
    targets: Sequence[Selector],
    excludes: Sequence[Selector],
) -> dict[str, Cause] | None:
    """Each change of `result` labelled, or None (saying why on stderr when a mark exists
    but cannot be used). `real`: the plan's `to_dict()`, asked for only when there is a
    mark (a large plan's JSON is tens of milliseconds)."""
    if not result.has_changes or shutil.which("git") is None:
        return None  # without git there is no mark: the plan is as without this feature
    found_mark = applied_commit(Path.cwd(), environment_of(target))
    if isinstance(found_mark, Unknown) and not found_mark.marked:
        return None  # no mark: the plan is as without this feature

    def plan_applied(snapshot: Snapshot) -> Mapping[str, Any]:
        return _plan_snapshot(snapshot, live, paths, var_files, target, prune, targets, excludes)

    found = labels_for(
        real(),
        cwd=Path.cwd(),
        paths=source_paths(paths, var_files, target),
        environment=environment_of(target),
        plan_applied=plan_applied,
    )
    if isinstance(found, Labelled):
        return found.causes
    if found.notice:
        click.echo(found.describe(), err=True)
    return None


def _plan_snapshot(
    snapshot: Snapshot,
    live: LiveState,
    paths: Sequence[Path],
    var_files: Sequence[Path],
    target: Target | None,
    prune: bool,
    targets: Sequence[Selector],
    excludes: Sequence[Selector],
) -> Mapping[str, Any]:
    """The manifests as of the applied commit planned against `live`: pure planning."""
    # A var file the commit did not have: the current one (its values are not manifests).
    variables = [snapshot.copies.get(path, path) for path in var_files]
    values = load_var_files(variables) if variables else None
    desired = validate_manifests(snapshot.paths(list(paths)), os.environ, values).desired
    if target is not None:
        desired = with_safety(desired, target)
    result = plan(desired, live, resources=RESOURCES, prune=prune, targets=targets,
                  excludes=excludes)  # fmt: skip
    return result.to_dict()


def exits_for_changes(result: Any, causes: Mapping[str, Cause] | None, fail_on: str) -> bool:
    """Whether `--detailed-exitcode` exits 2: the changes `--fail-on` counts."""
    if not result.has_changes:
        return False
    return fails((c.address for c in result.changes), causes, fail_on)
