"""Real git repositories in a test's temporary directory (never the project's own)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

IDENTITY = {
    "GIT_AUTHOR_NAME": "t",
    "GIT_AUTHOR_EMAIL": "t@example.com",
    "GIT_COMMITTER_NAME": "t",
    "GIT_COMMITTER_EMAIL": "t@example.com",
}


def git(root: Path, *args: str) -> str:
    """Run git in `root` for a test's set-up; its output, stripped."""
    done = subprocess.run(
        ["git", "-C", str(root), *args],
        check=True,
        capture_output=True,
        env={**os.environ, **IDENTITY},
    )
    return done.stdout.decode().strip()


def write(root: Path, name: str, content: str) -> Path:
    path = root / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(content, encoding="utf-8")
    return path


def commit_all(root: Path, message: str = "change") -> str:
    """Commit everything; the new commit's id."""
    git(root, "add", "-A")
    git(root, "commit", "-qm", message)
    return git(root, "rev-parse", "HEAD")


def new_repo(root: Path, files: dict[str, str]) -> str:
    """A repository at `root` with one commit holding `files`; that commit's id."""
    root.mkdir(parents=True, exist_ok=True)
    git(root, "init", "-q")
    for name, content in files.items():
        write(root, name, content)
    return commit_all(root, "first")
