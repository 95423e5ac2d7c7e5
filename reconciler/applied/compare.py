"""The labels of a plan, end to end: find the environment's applied commit, write its
manifests into a temporary directory, have the caller plan them against the live state it
has already read (no API call: the caller's `plan_applied` is pure planning), and label.

Every way this can fail is an `Unlabelled` with a one-line reason, never an exception and
never a guessed label: the plan is shown unlabelled, as without a mark.
"""

from __future__ import annotations

import io
import os
import tarfile
import tempfile
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

from reconciler.applied.labels import Cause, label
from reconciler.applied.mark import (
    Commit,
    GitFailure,
    NotRecorded,
    Unknown,
    applied_commit,
    git,
    ref_name,
    relative_paths,
    work_tree,
)
from reconciler.errors import ReconcilerError

# The manifests as of a commit are written into a directory of the caller's (a temporary
# one) with `git archive`: the work tree is never checked out over, and nothing outside
# that directory is written. The copies keep the repository's layout, so that the paths
# given (manifest files and directories, var files, `reconciler.yaml`) map to the same
# relative paths under it.


@dataclass(frozen=True)
class Snapshot:
    """`copies` maps each given path that existed at `commit` to its copy; `missing` are
    the given paths the commit did not have."""

    commit: Commit
    copies: dict[Path, Path] = field(default_factory=dict)
    missing: tuple[Path, ...] = ()

    def paths(self, given: Sequence[Path]) -> list[Path]:
        """The copies of `given`, in order, leaving out those the commit did not have."""
        return [self.copies[path] for path in given if path in self.copies]


def manifests_at(cwd: Path, commit: Commit, paths: Sequence[Path], dest_dir: Path) -> Snapshot:
    """`paths` (relative to `cwd`, as on the command line) as they were at `commit`, written
    under `dest_dir`. Raises `GitFailure` (one line) when git cannot give them."""
    root = work_tree(cwd)
    if isinstance(root, NotRecorded):
        raise GitFailure(root.reason)
    relative = relative_paths(cwd, root, paths)
    if isinstance(relative, NotRecorded):
        raise GitFailure(relative.reason)
    listed = git(root, "ls-tree", "-r", "-z", "--name-only", commit.id, "--", *relative).stdout
    names = [name for name in listed.decode("utf-8", "replace").split("\0") if name]
    present = [rel for rel in relative if any(_under(name, rel) for name in names)]
    if present:
        archive = git(root, "archive", "--format=tar", commit.id, "--", *present).stdout
        with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
            try:
                # `data`: no absolute paths, no `..`, no link leading out of dest_dir.
                tar.extractall(dest_dir, filter="data")
            except tarfile.FilterError as exc:
                raise GitFailure(f"the files at {commit.short} cannot be copied: {exc}") from None
    copies: dict[Path, Path] = {}
    missing: list[Path] = []
    for path, rel in zip(paths, relative, strict=True):
        if rel in present:
            copies[path] = dest_dir.joinpath(*PurePosixPath(rel).parts)
        else:
            missing.append(path)
    return Snapshot(commit, copies, tuple(missing))


def _under(name: str, rel: str) -> bool:
    return rel == "." or name == rel or name.startswith(rel.rstrip("/") + "/")


# Loads the manifests of the snapshot (`snapshot.paths(manifest_paths)`, with the copies
# of the var files where it has them) and plans them against the live state already read,
# with the real plan's options (prune, targets, excludes); returns `Plan.to_dict()`. A
# `ReconcilerError` it raises (a `ManifestError`: the manifests no longer load) becomes
# the reason the labels are omitted.
PlanApplied = Callable[[Snapshot], Mapping[str, Any]]


@dataclass(frozen=True)
class Labelled:
    """Every change of the real plan labelled, against `commit`."""

    commit: Commit
    causes: dict[str, Cause]


@dataclass(frozen=True)
class Unlabelled:
    """No labels. `notice`: a mark exists but could not be used, so say `describe()` (one
    line, on stderr); False when there is no mark at all, where the plan says nothing."""

    reason: str
    notice: bool = True

    def describe(self) -> str:
        return f"Labels omitted: {self.reason}."


def labels_for(
    real: Mapping[str, Any],
    *,
    cwd: Path,
    paths: Sequence[Path],
    environment: str | None,
    plan_applied: PlanApplied,
) -> Labelled | Unlabelled:
    """The labels of `real` (the plan's `to_dict()`), or why there are none. `paths`: every
    file the plan was loaded from (manifest paths, var files, reconciler.yaml), relative
    to `cwd` as on the command line."""
    found = applied_commit(cwd, environment)
    if isinstance(found, Unknown):
        return Unlabelled(found.reason, notice=found.marked)
    where = f"{ref_name(environment)} ({found.short})"
    with tempfile.TemporaryDirectory(prefix="reconciler-applied-") as scratch:
        try:
            snapshot = manifests_at(cwd, found, paths, Path(scratch))
            if len(snapshot.missing) == len(paths):
                return Unlabelled(f"{where} has none of the manifests")
            applied = plan_applied(snapshot)
        except GitFailure as exc:
            return Unlabelled(f"{where}: {exc}")
        except OSError as exc:  # the temporary copy: a full disk, a file it cannot write
            return Unlabelled(f"{where}: the manifests cannot be copied: {exc.strerror or exc}")
        except ReconcilerError as exc:
            # Named as in the repository: the temporary directory means nothing to a reader.
            first = str(exc).replace(str(Path(scratch)) + os.sep, "").strip().splitlines()
            because = f": {first[0]}" if first else ""
            return Unlabelled(f"the manifests at {where} do not load{because}")
    return Labelled(found, label(real, applied))
