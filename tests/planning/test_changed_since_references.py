"""`plan --changed-since` (run/scope.py): every entry added since the revision is
planned, however the changed entries name each other (a company and a department added
with thirty users that name both); a manifest on another drive than the repository's
is a usage error that names it."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from reconciler.errors import UsageError
from reconciler.manifest.models import Kind
from reconciler.run.scope import changed_since
from tests.planning.test_changed_since import git, load

USERS = 30


def test_every_added_entry_is_planned_when_they_name_each_other(tmp_path: Path) -> None:
    manifest = tmp_path / "tenant.yaml"
    manifest.write_text("departments: [{name: Old}]\n", encoding="utf-8")
    git(tmp_path, "init", "-q")
    git(tmp_path, "add", "-A")
    git(tmp_path, "commit", "-qm", "tenant")
    users = "".join(
        f"  - {{username: u{n:02}, email: u{n:02}@acme.com, company: Acme, department: IT}}\n"
        for n in range(USERS)
    )
    manifest.write_text(
        "companies: [{name: Acme}]\ndepartments: [{name: Old}, {name: IT}]\nusers:\n" + users,
        encoding="utf-8",
    )
    desired, scope = changed_since("HEAD", [manifest], load([manifest]), load)
    assert scope.describe() == (
        f"Partial plan: {USERS + 2} of {USERS + 3} entries, the {USERS + 2} added or changed "
        "since HEAD and those they name."
    )
    assert [u.model_dump()["username"] for u in desired.entries(Kind.users)] == [
        f"u{n:02}" for n in range(USERS)
    ]
    assert [d.model_dump()["name"] for d in desired.entries(Kind.departments)] == ["IT"]
    assert [c.model_dump()["name"] for c in desired.entries(Kind.companies)] == ["Acme"]


def test_a_manifest_on_another_drive_is_a_usage_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    manifest = tmp_path / "tenant.yaml"
    manifest.write_text("departments: [{name: IT}]\n", encoding="utf-8")
    git(tmp_path, "init", "-q")
    git(tmp_path, "add", "-A")
    git(tmp_path, "commit", "-qm", "tenant")
    desired = load([manifest])

    def another_drive(path: str, start: str | None = None) -> str:
        raise ValueError("path is on mount 'D:', start on mount 'C:'")  # as on Windows

    monkeypatch.setattr(os.path, "relpath", another_drive)
    with pytest.raises(UsageError) as refused:
        changed_since("HEAD", [manifest], desired, load)
    assert str(refused.value) == (f"--changed-since: {manifest} is not in the git repository")


def test_a_revision_not_in_the_repository_says_how_ci_gets_it(tmp_path: Path) -> None:
    manifest = tmp_path / "tenant.yaml"
    manifest.write_text("departments: [{name: IT}]\n", encoding="utf-8")
    git(tmp_path, "init", "-q")
    git(tmp_path, "add", "-A")
    git(tmp_path, "commit", "-qm", "tenant")
    with pytest.raises(UsageError) as refused:
        changed_since("origin/main", [manifest], load([manifest]), load)
    assert str(refused.value) == (
        f"--changed-since origin/main: not a commit of the repository at {tmp_path.resolve()} "
        "(in CI, fetch the history: a shallow clone lacks the base commit)"
    )


def test_the_repository_root_as_the_manifests_folder_skips_its_hidden_folders(
    tmp_path: Path,
) -> None:
    (tmp_path / ".github").mkdir()
    (tmp_path / ".github" / "ci.yml").write_text("on: push\njobs: {}\n", encoding="utf-8")
    manifest = tmp_path / "tenant.yaml"
    manifest.write_text("departments: [{name: IT}, {name: Sales}]\n", encoding="utf-8")
    git(tmp_path, "init", "-q")
    git(tmp_path, "add", "-A")
    git(tmp_path, "commit", "-qm", "tenant")
    manifest.write_text("departments: [{name: IT}, {name: Sales EMEA}]\n", encoding="utf-8")
    paths = [tmp_path]
    desired, scope = changed_since("HEAD", paths, load([manifest]), load)
    assert scope.describe() == (
        "Partial plan: 1 of 2 entries, the 1 added or changed since HEAD and those they "
        "name; 1 removed since then, left to the full plan."
    )
    assert [d.model_dump()["name"] for d in desired.entries(Kind.departments)] == ["Sales EMEA"]
