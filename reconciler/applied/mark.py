"""The applied mark: the commit a successful, whole `apply` applied, kept in the manifests'
repository as the ref `refs/reconciler/applied/<environment>` (`default` without
environments), so that a later `plan` can tell drift from pending (docs/drift.md).

A commit is recorded only when it says exactly what was applied: inside a git work tree
whose repository has commits, with no uncommitted change to the manifests (staged,
unstaged, untracked, or ignored but loadable). Anything else is a `NotRecorded` with a
one-line reason, never an error: the apply itself has succeeded. A detached HEAD is fine:
the mark is a commit id, not a branch, and CI jobs often check out detached.
"""

from __future__ import annotations

import subprocess
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from reconciler.manifest.loader import MANIFEST_SUFFIXES

DEFAULT_ENVIRONMENT = "default"
REF_PREFIX = "refs/reconciler/applied/"
# What git refuses in a ref name's component (git-check-ref-format(1)), and the slash,
# which would make one environment's ref a directory of another's.
_REFUSED_CHARACTERS = frozenset(" ~^:?*[\\/\x7f") | {chr(c) for c in range(32)}


# `git` itself, one subprocess per question, its answer as text and failures as values
# (a `GitFailure` with git's last line), never as tracebacks. No GitPython: the `git` on
# the PATH is the one CI jobs and people already use.


class GitFailure(Exception):
    """git could not be run, or exited non-zero: `message` is one line saying why."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


def git(cwd: Path, *args: str, ok: tuple[int, ...] = (0,)) -> subprocess.CompletedProcess[bytes]:
    """`git -C cwd args...`; raises `GitFailure` unless its exit status is in `ok`. Paths
    are literal: a directory named `team*` or `:x` is that directory, not a pattern."""
    command = ["git", "-C", str(cwd), "--literal-pathspecs", *args]
    try:
        done = subprocess.run(command, capture_output=True, check=False)
    except OSError as exc:
        raise GitFailure(f"git cannot be run: {exc.strerror or exc}") from None
    if done.returncode not in ok:
        raise GitFailure(f"git {args[0]}: {last_line(done.stderr)}")
    return done


def text(cwd: Path, *args: str) -> str:
    """git's output, stripped (for one-line answers: a commit id, a path)."""
    return git(cwd, *args).stdout.decode("utf-8", "replace").strip()


def last_line(output: bytes) -> str:
    lines = output.decode("utf-8", "replace").strip().splitlines()
    return lines[-1].removeprefix("fatal: ").strip() if lines else "failed"


@dataclass(frozen=True)
class Commit:
    """A commit of the manifests' repository, by its full id."""

    id: str

    @property
    def short(self) -> str:
        return self.id[:12]


@dataclass(frozen=True)
class Recorded:
    ref: str
    commit: Commit

    def describe(self) -> str:
        return f"Recorded {self.commit.short} as {self.ref}."


@dataclass(frozen=True)
class NotRecorded:
    """Nothing recorded; `reason` is one line saying why."""

    reason: str

    def describe(self) -> str:
        return f"Not recorded as applied: {self.reason}."


@dataclass(frozen=True)
class Unknown:
    """No applied commit to compare with. `marked`: a mark exists but cannot be used (worth
    a line to the reader); False when there is simply none (a plan says nothing, as
    without this feature)."""

    reason: str
    marked: bool = False


def ref_name(environment: str | None) -> str:
    """`refs/reconciler/applied/<environment>`; ValueError (one line) for a name git would
    refuse as a ref component."""
    name = DEFAULT_ENVIRONMENT if environment is None else environment
    problem = _refusal(name)
    if problem is not None:
        raise ValueError(f"the environment name {name!r} cannot name a git ref: {problem}")
    return REF_PREFIX + name


def _refusal(name: str) -> str | None:
    refused = sorted({char for char in name if char in _REFUSED_CHARACTERS})
    if not name:
        return "it is empty"
    if refused:
        return f"it holds {', '.join(repr(char) for char in refused)}"
    for bad, why in ((name.startswith("."), "it starts with a dot"),
                     (name.endswith("."), "it ends with a dot"),
                     (".." in name, "it holds '..'"),
                     (name.endswith(".lock"), "it ends with '.lock'"),
                     ("@{" in name, "it holds '@{'")):  # fmt: skip
        if bad:
            return why
    return None


def record(
    cwd: Path,
    manifest_paths: Sequence[Path],
    environment: str | None,
    commit: str | None = None,
) -> Recorded | NotRecorded:
    """Record HEAD (or `commit`, the one a saved plan was made from: its manifests were
    checked clean when the plan was saved) as the environment's applied mark. Relative
    `manifest_paths` are relative to `cwd`, as on the command line."""
    try:
        ref = ref_name(environment)
        found = clean_head(cwd, manifest_paths) if commit is None else _existing(cwd, commit)
        if isinstance(found, NotRecorded):
            return found
        git(cwd, "update-ref", "-m", f"reconciler apply ({ref})", ref, found.id)
    except (ValueError, GitFailure) as exc:
        return NotRecorded(str(exc))
    return Recorded(ref, found)


def partial_apply(
    *, targets: Sequence[str] = (), excludes: Sequence[str] = (), failed: int = 0,
    interrupted: bool = False,
) -> NotRecorded | None:  # fmt: skip
    """Why an apply that ran does not say the whole commit was applied (None: it does).
    `record` is called only after a whole apply; this is the one line otherwise."""
    if interrupted:
        return NotRecorded("the apply was interrupted")
    if failed:
        return NotRecorded(f"{failed:,} change{'' if failed == 1 else 's'} failed")
    if targets or excludes:
        flag = "--target" if targets else "--exclude"
        return NotRecorded(f"a partial apply ({flag}) applies part of the commit")
    return None


def clean_head(cwd: Path, manifest_paths: Sequence[Path]) -> Commit | NotRecorded:
    """HEAD's commit when it holds the manifests exactly as they are in the work tree: what
    `apply` records, and what `plan --out` saves in the plan as `made_from.commit` (left
    out when this is a `NotRecorded`)."""
    try:
        root = work_tree(cwd)
        if isinstance(root, NotRecorded):
            return root
        head = git(root, "rev-parse", "--verify", "-q", "HEAD^{commit}", ok=(0, 1))
        if head.returncode != 0:
            return NotRecorded("the git repository has no commits yet")
        relative = relative_paths(cwd, root, manifest_paths)
        if isinstance(relative, NotRecorded):
            return relative
        dirty = uncommitted(root, relative)
    except GitFailure as exc:
        return NotRecorded(str(exc))
    if dirty:
        shown = ", ".join(dirty[:5]) + (f" and {len(dirty) - 5} more" if len(dirty) > 5 else "")
        return NotRecorded(f"the manifests have uncommitted changes ({shown})")
    return Commit(head.stdout.decode().strip())


def work_tree(cwd: Path) -> Path | NotRecorded:
    """The top of the git work tree holding `cwd`."""
    if not cwd.is_dir():
        return NotRecorded(f"{cwd} is not a directory")
    inside = git(cwd, "rev-parse", "--is-inside-work-tree", ok=(0, 128))
    if inside.returncode != 0 or inside.stdout.strip() != b"true":
        return NotRecorded("not in a git work tree")
    return Path(text(cwd, "rev-parse", "--show-toplevel"))


def relative_paths(cwd: Path, root: Path, paths: Sequence[Path]) -> list[str] | NotRecorded:
    """Each path relative to the work tree's top, with `/` ("." for the top itself)."""
    found = []
    for path in paths:
        full = (cwd / path).resolve()
        try:
            found.append(full.relative_to(root.resolve()).as_posix())
        except ValueError:
            return NotRecorded(f"{path} is outside the git work tree at {root}")
    return found


def uncommitted(root: Path, relative: Sequence[str]) -> list[str]:
    """The files under `relative` that differ from HEAD and that loading the manifests would
    read: a given path itself, or a manifest file in a given directory."""
    status = git(root, "status", "--porcelain=v1", "-z", "--untracked-files=all",
                 "--ignored=matching", "--", *relative).stdout  # fmt: skip
    entries = iter(status.decode("utf-8", "replace").split("\0"))
    changed: list[str] = []
    for entry in entries:
        if not entry:
            continue
        names = [entry[3:]]
        if entry[0] in "RC":  # a rename's or copy's source follows, bare: it changed too
            names.append(next(entries, ""))
        for name in names:
            if any(_loaded(name, given) for given in relative) and name not in changed:
                changed.append(name)
    return changed


def _loaded(name: str, given: str) -> bool:
    if name == given:
        return True
    inside = PurePosixPath(name) if given == "." else None
    if inside is None:
        if not name.startswith(given.rstrip("/") + "/"):
            return False
        inside = PurePosixPath(name).relative_to(given)
    hidden = any(part.startswith(".") for part in inside.parts)
    return not hidden and name.lower().endswith(MANIFEST_SUFFIXES)


def _existing(cwd: Path, commit: str) -> Commit | NotRecorded:
    root = work_tree(cwd)
    if isinstance(root, NotRecorded):
        return root
    found = git(root, "rev-parse", "--verify", "-q", "--end-of-options", f"{commit}^{{commit}}",
                ok=(0, 1, 128))  # fmt: skip
    if found.returncode != 0:
        return NotRecorded(f"the plan's commit {commit[:12]} is not in this repository")
    return Commit(found.stdout.decode().strip())


def applied_commit(cwd: Path, environment: str | None) -> Commit | Unknown:
    """The commit the environment's mark names, when this repository has it."""
    try:
        ref = ref_name(environment)
    except ValueError as exc:
        return Unknown(str(exc), marked=True)
    try:
        root = work_tree(cwd)
        if isinstance(root, NotRecorded):
            return Unknown(root.reason)
        named = git(root, "rev-parse", "--verify", "-q", "--end-of-options", ref, ok=(0, 1))
        if named.returncode != 0:
            return Unknown(f"no {ref} in the repository")
        commit = named.stdout.decode().strip()
        found = git(root, "cat-file", "-e", f"{commit}^{{commit}}", ok=(0, 1, 128))
    except GitFailure as exc:
        return Unknown(str(exc), marked=True)
    if found.returncode != 0:
        return Unknown(
            f"{ref} names {commit[:12]}, which this clone does not have (a shallow clone: "
            "fetch more history, e.g. `fetch-depth: 0`)",
            marked=True,
        )
    return Commit(commit)
