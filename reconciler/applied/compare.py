"""The labels of a plan, end to end: find the environment's applied commit, write its
manifests into a temporary directory, have the caller plan them against the live state it
has already read (no API call: the caller's `plan_applied` is pure planning), and label.

Every way this can fail is an `Unlabelled` with a one-line reason, never an exception and
never a guessed label: the plan is shown unlabelled, as without a mark.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from reconciler.applied.git import GitFailure
from reconciler.applied.labels import Cause, label
from reconciler.applied.mark import Commit, Unknown, applied_commit, ref_name
from reconciler.applied.snapshot import Snapshot, manifests_at
from reconciler.errors import ReconcilerError

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
