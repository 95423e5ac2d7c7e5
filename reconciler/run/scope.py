"""Partial plans (`plan --changed-since REF`): only the manifest entries added or changed
between a git revision and the working tree, plus the entries they name, so that a pull
request that changes one user reads one user's details, not the whole tenant's.

The manifests at REF are read from git (`git ls-tree`, `git cat-file`, never a checkout)
and loaded like the working tree's, with the same variables. Entries compare by kind and
key, values as loaded. Then the desired state is cut down to the entries in scope: the
resources read live details only for the entries they are given, so the cut is what makes
the plan cheap.

What a partial plan does not do, and says so:
- It removes nothing: pruning needs every entry of a kind, so a partial plan's desired
  state has no `settings.prune`. Entries removed since REF are counted in its scope; the
  full plan (the nightly drift job, or `plan` without `--changed-since`) removes them.
- When the settings changed, or the manifests at REF do not load, every entry is planned:
  `Scope.full_reason` says why.
"""

from __future__ import annotations

import os
import subprocess
import tempfile
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any

from pydantic import BaseModel

from reconciler.errors import ManifestError, UsageError
from reconciler.kinds.table import key_field, normalise_key, spec
from reconciler.manifest.desired import DesiredState
from reconciler.manifest.loader import MANIFEST_SUFFIXES
from reconciler.manifest.models import Kind

EntryKey = tuple[Kind, str]
Load = Callable[[Sequence[Path]], DesiredState]


@dataclass(frozen=True)
class Scope:
    """What a plan covers. `entries` are planned: `changed` of them added or changed since
    `since`, the rest named by those; `removed` entries are left to the full plan."""

    since: str
    entries: int
    changed: int
    removed: int
    total: int
    full_reason: str | None = None

    @property
    def partial(self) -> bool:
        return self.full_reason is None

    def to_dict(self) -> dict[str, Any]:
        return {
            "partial": self.partial,
            "changed_since": self.since,
            "entries": self.entries,
            "changed": self.changed,
            "removed": self.removed,
            "total_entries": self.total,
            "full_reason": self.full_reason,
        }

    def describe(self) -> str:
        """One line for people: what this plan covers."""
        if not self.partial:
            return f"Full plan of all {self.total} entries ({self.full_reason})."
        removed = (
            f"; {self.removed} removed since then, left to the full plan" if self.removed else ""
        )
        return (
            f"Partial plan: {self.entries} of {self.total} entries, the {self.changed} added or "
            f"changed since {self.since} and those they name{removed}."
        )


def changed_since(
    since: str, paths: Sequence[Path], current: DesiredState, load: Load
) -> tuple[DesiredState, Scope]:
    """The desired state cut down to the entries in scope, and the scope. `load` loads
    manifests as the command does (variables included). Raises UsageError when `since` or
    the manifests' repository cannot be used."""
    now = _entries(current)
    with tempfile.TemporaryDirectory() as scratch:
        old_paths = _files_at(since, paths, Path(scratch))
        try:
            before = load(old_paths) if old_paths else None
        except ManifestError:
            return current, _full(since, now, "the manifests at that revision do not load")
    if before is None:
        return current, _full(since, now, f"no manifests at {since}")
    if _dump(before.settings) != _dump(current.settings):
        return current, _full(since, now, f"the settings changed since {since}")
    old = _entries(before)
    changed = {
        key for key, entry in now.items() if key not in old or _dump(old[key]) != _dump(entry)
    }
    removed = old.keys() - now.keys()
    wanted = _with_references(changed, now, current.settings.employee_key)
    scope = Scope(since, len(wanted), len(changed), len(removed), len(now))
    return _cut(current, wanted), scope


def _full(since: str, entries: dict[EntryKey, Any], reason: str) -> Scope:
    return Scope(since, len(entries), len(entries), 0, len(entries), reason)


def _dump(model: BaseModel) -> Any:
    return model.model_dump(mode="json")


def _entries(desired: DesiredState) -> dict[EntryKey, Any]:
    found: dict[EntryKey, Any] = {}
    for kind in Kind:
        field = key_field(kind, desired.settings.employee_key)
        for entry in desired.entries(kind):
            key = normalise_key(kind, getattr(entry, field, None), desired.settings.employee_key)
            if key is not None:
                found[(kind, key)] = entry
    return found


def _with_references(
    changed: Iterable[EntryKey], entries: dict[EntryKey, Any], employee_key: str
) -> set[EntryKey]:
    """`changed` and every entry they name, and those these name, and so on."""
    wanted: set[EntryKey] = set()
    todo = list(changed)
    while todo:
        key = todo.pop()
        if key in wanted:
            continue
        wanted.add(key)
        entry = entries[key]
        for field, kind in spec(key[0]).references:
            value = getattr(entry, field, None)
            for name in value if isinstance(value, list) else [value]:
                named = (kind, normalise_key(kind, name, employee_key) or "")
                if named in entries and named not in wanted:
                    todo.append(named)
    return wanted


def _cut(desired: DesiredState, wanted: set[EntryKey]) -> DesiredState:
    manifest = desired.manifest
    employee_key = desired.settings.employee_key
    update: dict[str, Any] = {}
    for kind in Kind:
        field = key_field(kind, employee_key)
        kept = [
            entry
            for entry in desired.entries(kind)
            if (kind, normalise_key(kind, getattr(entry, field, None), employee_key) or "")
            in wanted
        ]
        section, *inside = spec(kind).path
        if not inside:
            update[section] = kept
        elif (parent := getattr(manifest, section)) is not None:  # workspace.employees
            update[section] = parent.model_copy(update={inside[0]: kept})
    # A partial desired state must never prune: every unlisted object would go.
    update["settings"] = desired.settings.model_copy(update={"prune": []})
    return DesiredState(
        manifest.model_copy(update=update),
        files=desired.files,
        entry_nodes=desired.entry_nodes,
        settings_node=desired.settings_node,
        refinements=desired.refinements,
    )


# -- the manifests at a revision -----------------------------------------------------------


def _git(root: Path, *args: str) -> bytes:
    try:
        done = subprocess.run(["git", "-C", str(root), *args], capture_output=True)
    except OSError as exc:
        raise UsageError(f"--changed-since needs git: {exc.strerror or exc}") from None
    if done.returncode != 0:
        message = done.stderr.decode("utf-8", "replace").strip().splitlines()
        raise UsageError(f"--changed-since: git {args[0]}: {message[-1] if message else '?'}")
    return done.stdout


def _files_at(since: str, paths: Sequence[Path], scratch: Path) -> list[Path]:
    """The given paths as they were at `since`, written under `scratch`: the paths to load
    (those that existed then)."""
    anchor = paths[0] if paths[0].is_dir() else paths[0].parent
    root = Path(_git(anchor.resolve(), "rev-parse", "--show-toplevel").decode().strip())
    try:
        commit = _git(root, "rev-parse", "--verify", "--end-of-options", f"{since}^{{commit}}")
    except UsageError:
        raise UsageError(
            f"--changed-since {since}: not a commit of the repository at {root} "
            "(in CI, fetch the history: a shallow clone lacks the base commit)"
        ) from None
    commit_id = commit.decode().strip()
    found: list[Path] = []
    for given in paths:
        relative = _relative(given, root)
        listed = _git(root, "ls-tree", "-r", "-z", "--name-only", commit_id, "--", relative)
        names = [name for name in listed.decode("utf-8", "replace").split("\0") if name]
        if not names:
            continue
        for name in names:
            if name != relative and not _is_manifest(name, relative):
                continue
            target = scratch.joinpath(*PurePosixPath(name).parts)
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(_git(root, "cat-file", "blob", f"{commit_id}:{name}"))
        found.append(scratch.joinpath(*PurePosixPath(relative).parts))
    return found


def _relative(given: Path, root: Path) -> str:
    try:
        return Path(os.path.relpath(given.resolve(), root)).as_posix()
    except ValueError:  # another drive
        raise UsageError(f"--changed-since: {given} is not in the git repository") from None


def _is_manifest(name: str, under: str) -> bool:
    hidden = any(part.startswith(".") for part in PurePosixPath(name).relative_to(under).parts)
    return not hidden and name.lower().endswith(MANIFEST_SUFFIXES)
