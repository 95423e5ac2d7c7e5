"""`--changed-since` when git itself fails: git not installed, and a manifest folder
outside any repository; each is a usage error that says so, naming git's own words."""

from __future__ import annotations

from pathlib import Path

import pytest

from reconciler.errors import UsageError
from reconciler.manifest.models import Kind
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


def test_a_changed_employee_is_in_the_partial_desired_state(tmp_path: Path) -> None:
    manifest = tmp_path / "tenant.yaml"
    manifest.write_text(
        "workspace:\n"
        "  employees:\n"
        "    - {email: ann@acme.com, firstName: Ann}\n"
        "    - {email: bob@acme.com, firstName: Bob}\n",
        encoding="utf-8",
    )
    git(tmp_path, "init", "-q")
    git(tmp_path, "add", "-A")
    git(tmp_path, "commit", "-qm", "tenant")
    manifest.write_text(
        manifest.read_text(encoding="utf-8").replace("firstName: Bob", "firstName: Robert"),
        encoding="utf-8",
    )
    paths = [manifest]
    desired, scope = changed_since("HEAD", paths, load(paths), load)
    assert (scope.changed, scope.entries) == (1, 1)
    assert [e.model_dump()["email"] for e in desired.entries(Kind.employees)] == ["bob@acme.com"]


def test_a_manifest_folder_whose_name_starts_with_a_dash_is_read_at_the_revision(
    tmp_path: Path,
) -> None:
    folder = tmp_path / "-tenant"
    folder.mkdir()
    (folder / "tenant.yaml").write_text(MANIFEST, encoding="utf-8")
    git(tmp_path, "init", "-q")
    git(tmp_path, "add", "-A")
    git(tmp_path, "commit", "-qm", "tenant")
    edit = (folder / "tenant.yaml").read_text(encoding="utf-8")
    (folder / "tenant.yaml").write_text(
        edit.replace("notes: first", "notes: second"), encoding="utf-8"
    )
    paths = [folder]
    desired, scope = changed_since("HEAD", paths, load(paths), load)
    assert (scope.partial, scope.changed) == (True, 1)
    assert [e.model_dump()["name"] for e in desired.entries(Kind.companies)] == ["Acme"]
