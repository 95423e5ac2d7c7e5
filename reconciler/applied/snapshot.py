"""The manifests as of a commit, written into a directory of the caller's (a temporary one)
with `git archive`: the work tree is never checked out over, and nothing outside that
directory is written. The copies keep the repository's layout, so that the paths given
(manifest files and directories, var files, `reconciler.yaml`) map to the same relative
paths under it.
"""

from __future__ import annotations

import io
import tarfile
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from reconciler.applied.git import GitFailure, git
from reconciler.applied.mark import Commit, NotRecorded, relative_paths, work_tree


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
