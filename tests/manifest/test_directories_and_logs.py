"""Paths the user gives that are not what they seem: a directory with a symbolic link
back into itself (manifest/loader.py), a file reached twice, a directory without
manifests; and the places an apply writes to that cannot be written (the apply log, the
lock directory): each a one-line message naming the place."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from reconciler.applying import lock
from reconciler.applying.log import ApplyLog
from reconciler.errors import ManifestError, UsageError
from reconciler.manifest.loader import load_manifests


@pytest.mark.usefixtures("no_network")
def test_a_link_loop_is_reported_and_a_file_reached_twice_read_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    Path("a/b").mkdir(parents=True)
    Path("a/b/one.yaml").write_text("companies:\n  - name: A\n", encoding="utf-8")
    Path("a/b/up").symlink_to("..")
    Path("same").symlink_to("a/b")
    Path("empty").mkdir()
    real_a = os.path.realpath("a")
    with pytest.raises(ManifestError) as refused:
        load_manifests([Path("a"), Path("same"), Path("empty"), Path("a/b/one.yaml")], {})
    assert refused.value.problems == [
        f"a:1:1: symbolic link loop: a/b/up points to {real_a}, which holds it: remove the link",
        f"same:1:1: symbolic link loop: same/up points to {real_a}, which holds it: remove the "
        "link",
        "empty:1:1: no manifest files (*.yaml, *.yml) in this directory",
    ]


@pytest.mark.usefixtures("no_network")
def test_a_directory_linked_twice_is_read_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    Path("m/shared").mkdir(parents=True)
    Path("m/shared/c.yaml").write_text("companies:\n  - name: A\n", encoding="utf-8")
    Path("m/again").symlink_to("shared")
    Path("m/.hidden").mkdir()
    Path("m/.hidden/h.yaml").write_text("companies:\n  - name: H\n", encoding="utf-8")
    Path("m/UPPER.YML").write_text("users:\n  - username: u\n", encoding="utf-8")
    Path("m/notes.txt").write_text("not a manifest\n", encoding="utf-8")
    desired = load_manifests([Path("m")], {})
    # the shared directory through one of its two paths (whichever the walk meets first)
    assert desired.files[0] == "m/UPPER.YML"
    assert desired.files[1:] in (("m/again/c.yaml",), ("m/shared/c.yaml",))
    assert [c.name for c in desired.manifest.companies] == ["A"]
    assert [u.username for u in desired.manifest.users] == ["u"]


def test_an_apply_log_that_cannot_be_written_names_it(tmp_path: Path) -> None:
    (tmp_path / "logs").write_text("a file\n", encoding="utf-8")
    path = tmp_path / "logs" / "apply.jsonl"
    with pytest.raises(UsageError) as refused, ApplyLog(path):
        pass
    assert str(refused.value) == (
        f"cannot write the apply log {path}: {tmp_path / 'logs'} is a file, not a directory"
    )


def test_no_lock_directory_that_can_be_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("a file\n", encoding="utf-8")
    monkeypatch.delenv(lock.LOCK_DIR_VARIABLE, raising=False)
    monkeypatch.setattr("platformdirs.user_cache_dir", lambda *a, **k: str(blocker / "cache"))
    monkeypatch.setattr("tempfile.gettempdir", lambda: str(blocker))
    with pytest.raises(lock.ApplyLocked) as refused:
        lock.lock_directory()
    assert str(refused.value) == (
        "no directory for the apply lock can be written: set RECONCILER_LOCK_DIR to one"
    )


@pytest.mark.usefixtures("no_network")
def test_links_stay_inside_the_repository_the_manifests_are_in(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """In a git work tree the boundary is the repository, wherever the command runs: a
    link to a sibling folder of it is read, one leading out of it is refused unread."""
    repo, outside = tmp_path / "repo", tmp_path / "outside"
    (repo / ".git").mkdir(parents=True)
    (repo / "manifests").mkdir()
    (repo / "shared").mkdir()
    outside.mkdir()
    (repo / "shared" / "c.yaml").write_text("companies:\n  - name: Shared\n", encoding="utf-8")
    (outside / "secret.yaml").write_text("companies:\n  - name: Leaked\n", encoding="utf-8")
    (repo / "manifests" / "shared").symlink_to("../shared")
    monkeypatch.chdir(outside)  # the working directory does not matter inside a repository
    desired = load_manifests([repo / "manifests"], {})
    assert [c.name for c in desired.manifest.companies] == ["Shared"]
    (repo / "manifests" / "secret.yaml").symlink_to(outside / "secret.yaml")
    with pytest.raises(ManifestError) as refused:
        load_manifests([repo / "manifests"], {})
    link = repo / "manifests" / "secret.yaml"
    assert refused.value.problems == [
        f"{repo / 'manifests'}:1:1: {link} is a symbolic link to "
        f"{os.path.realpath(outside / 'secret.yaml')}, outside the repository {repo}: not read "
        "(a manifest is read only inside it; copy the file in, or give its path directly)"
    ]
