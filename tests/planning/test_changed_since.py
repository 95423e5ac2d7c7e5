"""`--changed-since REF`: the entries in scope, the cut desired state, and the cases where
only a full plan will do."""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Sequence
from pathlib import Path

import pytest
from click.testing import CliRunner

from reconciler.cli import main
from reconciler.errors import UsageError
from reconciler.manifest import DesiredState, validate_manifests
from reconciler.manifest.models import Kind
from reconciler.run.scope import changed_since

MANIFEST = """\
settings:
  prune: [users]
companies:
  - name: Acme
    notes: first
  - name: Globex
departments:
  - name: IT
  - name: Sales
users:
  - username: alice
    email: alice@acme.com
    company: Acme
    department: IT
  - username: bob
    email: bob@globex.com
    company: Globex
  - username: carol
    email: carol@acme.com
assets:
  - serial_number: SN-1
    company: Globex
    assigned_users: [carol]
"""


def git(root: Path, *args: str) -> None:
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com"}
    env |= {"GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.com"}
    subprocess.run(["git", "-C", str(root), *args], check=True, capture_output=True, env=env)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    (tmp_path / "manifests").mkdir()
    (tmp_path / "manifests" / "tenant.yaml").write_text(MANIFEST, encoding="utf-8")
    git(tmp_path, "init", "-q")
    git(tmp_path, "add", "-A")
    git(tmp_path, "commit", "-qm", "tenant")
    return tmp_path


def load(paths: Sequence[Path]) -> DesiredState:
    return validate_manifests(list(paths), {}).desired


def edit(repo: Path, old: str, new: str) -> Path:
    path = repo / "manifests" / "tenant.yaml"
    path.write_text(path.read_text(encoding="utf-8").replace(old, new), encoding="utf-8")
    return repo / "manifests"


def names(desired: DesiredState, kind: Kind) -> list[str]:
    field = {"assets": "serial_number", "users": "username"}.get(kind.value, "name")
    return [getattr(entry, field) for entry in desired.entries(kind)]


def test_one_changed_user_and_what_it_names(repo: Path) -> None:
    paths = [edit(repo, "email: alice@acme.com", "email: alice@acme.org")]
    desired, scope = changed_since("HEAD", paths, load(paths), load)
    assert (scope.partial, scope.changed, scope.entries, scope.total) == (True, 1, 3, 8)
    assert names(desired, Kind.users) == ["alice"]
    assert names(desired, Kind.companies) == ["Acme"]
    assert names(desired, Kind.departments) == ["IT"]
    assert names(desired, Kind.assets) == []
    # A partial plan never prunes: every user it was not given would be disabled.
    assert desired.settings.prune == []
    # Locations still point into the working tree's files.
    assert (desired.location("users", "alice") or "").endswith("tenant.yaml:11:5")


def test_references_are_followed_through(repo: Path) -> None:
    paths = [edit(repo, "serial_number: SN-1", "serial_number: SN-1\n    location: HQ")]
    desired, scope = changed_since("HEAD", paths, load(paths), load)
    assert names(desired, Kind.assets) == ["SN-1"]
    assert names(desired, Kind.users) == ["carol"]
    assert names(desired, Kind.companies) == ["Globex"]
    assert (scope.changed, scope.entries) == (1, 3)


def test_nothing_changed_plans_nothing(repo: Path) -> None:
    paths = [repo / "manifests"]
    desired, scope = changed_since("HEAD", paths, load(paths), load)
    assert (scope.partial, scope.entries, scope.changed) == (True, 0, 0)
    assert all(desired.entries(kind) == [] for kind in Kind)


def test_removed_entries_are_counted_and_left_to_the_full_plan(repo: Path) -> None:
    paths = [edit(repo, "  - username: bob\n    email: bob@globex.com\n    company: Globex\n", "")]
    desired, scope = changed_since("HEAD", paths, load(paths), load)
    assert (scope.removed, scope.entries) == (1, 0)
    assert names(desired, Kind.users) == []
    assert "1 removed since then, left to the full plan" in scope.describe()


def test_changed_settings_mean_a_full_plan(repo: Path) -> None:
    paths = [edit(repo, "prune: [users]", "prune: []")]
    current = load(paths)
    desired, scope = changed_since("HEAD", paths, current, load)
    assert desired is current
    assert not scope.partial and scope.full_reason == "the settings changed since HEAD"
    # A full plan leaves nothing to another one: every entry is planned, none removed.
    assert scope.to_dict() == {
        "partial": False,
        "changed_since": "HEAD",
        "entries": 8,
        "changed": 8,
        "removed": 0,
        "total_entries": 8,
        "full_reason": "the settings changed since HEAD",
    }


def test_manifests_that_did_not_load_then_mean_a_full_plan(repo: Path) -> None:
    edit(repo, "users:", "users: [")
    git(repo, "commit", "-qam", "broken")
    paths = [edit(repo, "users: [", "users:")]
    _, scope = changed_since("HEAD", paths, load(paths), load)
    assert scope.full_reason == "the manifests at that revision do not load"


def test_a_new_directory_is_all_new(repo: Path) -> None:
    (repo / "more").mkdir()
    (repo / "more" / "x.yaml").write_text("departments: [{name: Legal}]\n", encoding="utf-8")
    paths = [repo / "more"]
    _, scope = changed_since("HEAD", paths, load(paths), load)
    assert scope.full_reason == "no manifests at HEAD"


def test_an_unknown_revision_is_a_usage_error(repo: Path) -> None:
    paths = [repo / "manifests"]
    with pytest.raises(UsageError, match="--changed-since no-such-branch: not a commit"):
        changed_since("no-such-branch", paths, load(paths), load)


def test_manifests_outside_git_are_a_usage_error(tmp_path: Path) -> None:
    (tmp_path / "m.yaml").write_text("departments: [{name: IT}]\n", encoding="utf-8")
    paths = [tmp_path / "m.yaml"]
    with pytest.raises(UsageError, match="--changed-since"):
        changed_since("HEAD", paths, load(paths), load)


def test_prune_and_changed_since_do_not_go_together(repo: Path) -> None:
    result = CliRunner().invoke(
        main, ["plan", str(repo / "manifests"), "--changed-since", "HEAD", "--prune"]
    )
    assert result.exit_code == 1
    assert "--prune" in result.output and "full plan" in result.output


def test_the_plan_says_it_is_partial(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(repo)  # --sandbox keeps its state under the working directory
    paths = edit(repo, "email: alice@acme.com", "email: alice@acme.org")
    runner = CliRunner()
    args = ["plan", str(paths), "--changed-since", "HEAD", "--sandbox"]
    shown = runner.invoke(main, [*args, "--format", "json"])
    assert shown.exit_code == 0, shown.output
    plan = json.loads(shown.stdout)
    assert plan["scope"] == {
        "partial": True,
        "changed_since": "HEAD",
        "entries": 3,
        "changed": 1,
        "removed": 0,
        "total_entries": 8,
        "full_reason": None,
    }
    assert {change["key"] for change in plan["changes"]} <= {"alice", "Acme", "IT"}
    text = runner.invoke(main, args)
    assert text.stdout.startswith("Partial plan: 3 of 8 entries, the 1 added or changed since HEAD")
