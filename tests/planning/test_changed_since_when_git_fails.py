"""`--changed-since` when git itself fails: git not installed, a manifest folder outside
any repository, and git failing and saying why in its own way (planning/scope.py). Each is
a usage error that says so, naming git's own words: its last line, whatever its encoding
(a localised git may write Latin-1: undecodable bytes are shown as replacement
characters, never a traceback), and `?` when git said nothing."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest

from reconciler.errors import UsageError
from reconciler.run.scope import changed_since
from tests.planning.test_changed_since import MANIFEST, git, load


def test_without_git_the_error_says_git_is_needed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "tenant.yaml").write_text(MANIFEST, encoding="utf-8")
    git(tmp_path, "init", "-q")
    paths = [tmp_path / "tenant.yaml"]
    desired = load(paths)
    empty = tmp_path / "no-git-here"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    with pytest.raises(UsageError) as caught:
        changed_since("HEAD", paths, desired, load)
    assert str(caught.value) == "--changed-since needs git: No such file or directory"


def test_outside_a_repository_the_error_names_what_git_said(tmp_path: Path) -> None:
    (tmp_path / "m.yaml").write_text("departments: [{name: IT}]\n", encoding="utf-8")
    paths = [tmp_path / "m.yaml"]
    with pytest.raises(UsageError) as caught:
        changed_since("HEAD", paths, load(paths), load)
    message = str(caught.value)
    assert message.startswith("--changed-since: git rev-parse: fatal: not a git repository")


@pytest.mark.parametrize(
    ("stderr", "shown"),
    [
        (b"fatal: d\xe9p\xf4t introuvable\n", "fatal: d\ufffdp\ufffdt introuvable"),
        (b"warning: one\nfatal: two\n", "fatal: two"),
        (b"  fatal: padded  \n\n", "fatal: padded"),
        (b"", "?"),
    ],
)
def test_a_failing_git_is_quoted_by_its_last_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, stderr: bytes, shown: str
) -> None:
    (tmp_path / "tenant.yaml").write_text(MANIFEST, encoding="utf-8")
    paths = [tmp_path / "tenant.yaml"]
    desired = load(paths)
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "said").write_bytes(stderr)
    fake = bin_dir / "git"
    fake.write_text(f"#!/bin/sh\ncat '{bin_dir / 'said'}' >&2\nexit 128\n", encoding="utf-8")
    fake.chmod(fake.stat().st_mode | stat.S_IXUSR)
    monkeypatch.setenv("PATH", f"{bin_dir}:/usr/bin:/bin")  # this git first
    with pytest.raises(UsageError) as caught:
        changed_since("HEAD", paths, desired, load)
    assert str(caught.value) == f"--changed-since: git rev-parse: {shown}"
