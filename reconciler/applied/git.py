"""Running `git` for the applied mark: one subprocess per question, its answer as text, and
failures as values (a `GitFailure` with git's last line), never as tracebacks. No
GitPython: the `git` on the PATH is the one CI jobs and people already use."""

from __future__ import annotations

import subprocess
from pathlib import Path


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
