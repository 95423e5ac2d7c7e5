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
from reconciler.manifest.desired import DesiredState
from reconciler.manifest.models import Kind
from reconciler.manifest.validate import validate_manifests
from reconciler.run.scope import Scope, changed_since

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
    with pytest.raises(UsageError) as refused:
        changed_since("no-such-branch", paths, load(paths), load)
    assert str(refused.value) == (
        f"--changed-since no-such-branch: not a commit of the repository at {repo} (in CI, "
        "fetch the history: a shallow clone lacks the base commit)"
    )


def test_manifests_outside_git_are_a_usage_error(tmp_path: Path) -> None:
    (tmp_path / "m.yaml").write_text("departments: [{name: IT}]\n", encoding="utf-8")
    paths = [tmp_path / "m.yaml"]
    # After the colon, git's own words (its version's and its language's): the rest is ours.
    with pytest.raises(UsageError, match=r"^--changed-since: git rev-parse: .+"):
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


# `--changed-since REF` with the manifests in a folder whose own name starts with a dot
# (`.tenant/`, as some repositories keep configuration): hidden files and folders *inside* the
# manifests' folder are left out as the loader leaves them out, but the folder given is the user's
# choice, so its manifests at REF are read and the plan is partial.

HIDDEN_FOLDER_MANIFEST = """\
departments:
  - name: IT
  - name: Sales
"""


def test_manifests_in_a_hidden_folder_are_read_at_the_revision(tmp_path: Path) -> None:
    folder = tmp_path / ".tenant"
    (folder / ".drafts").mkdir(parents=True)
    (folder / "tenant.yaml").write_text(HIDDEN_FOLDER_MANIFEST, encoding="utf-8")
    # A hidden folder inside is no manifest, then or now (the loader skips it too).
    (folder / ".drafts" / "old.yaml").write_text("departments: [{name: Legal}]\n")
    git(tmp_path, "init", "-q")
    git(tmp_path, "add", "-A")
    git(tmp_path, "commit", "-qm", "tenant")
    path = folder / "tenant.yaml"
    path.write_text(HIDDEN_FOLDER_MANIFEST.replace("Sales", "Sales EMEA"), encoding="utf-8")
    desired, scope = changed_since("HEAD", [folder], load([folder]), load)
    assert scope.full_reason is None
    assert (scope.partial, scope.changed, scope.entries, scope.removed) == (True, 1, 1, 1)
    assert [getattr(d, "name", None) for d in desired.entries(Kind.departments)] == ["Sales EMEA"]


# `--changed-since REF` keeps where things were written: the partial desired state it plans from
# still locates the settings (a category's `section_ids` problem names its line) and the overlay
# files that refined an entry (the plan says "refined at").

BASE = """\
settings:
  prune: [users]
users:
  - username: alice
    email: alice@acme.com
  - username: bob
    email: bob@acme.com
"""

SITE = """\
users:
  - username: alice
    overlay: true
    location: Manchester
"""


def committed_tenant(tmp_path: Path) -> Path:
    """`manifests/` with BASE and SITE, committed in a new repository at `tmp_path`."""
    folder = tmp_path / "manifests"
    folder.mkdir()
    (folder / "10-base.yaml").write_text(BASE, encoding="utf-8")
    (folder / "20-site.yaml").write_text(SITE, encoding="utf-8")
    git(tmp_path, "init", "-q")
    git(tmp_path, "add", "-A")
    git(tmp_path, "commit", "-qm", "tenant")
    return folder


def test_a_partial_plan_still_locates_settings_and_overlays(tmp_path: Path) -> None:
    folder = committed_tenant(tmp_path)
    site = folder / "20-site.yaml"
    site.write_text(SITE.replace("Manchester", "Leeds"), encoding="utf-8")
    desired, scope = changed_since("HEAD", [folder], load([folder]), load)
    assert (scope.partial, scope.changed, scope.entries) == (True, 1, 1)
    assert [getattr(user, "username", None) for user in desired.entries("users")] == ["alice"]
    base, site_file = str(folder / "10-base.yaml"), str(site)
    assert desired.settings_location("prune", 0) == f"{base}:2:11"
    assert desired.location("users", "alice") == f"{base}:4:5"
    assert desired.location("users", "alice", "location") == f"{site_file}:4:15"
    assert desired.refined_at("users", "alice") == [f"{site_file}:2:5"]


def test_what_a_plan_covers_in_one_line() -> None:
    partial = Scope("main", entries=3, changed=1, removed=0, total=8)
    assert partial.describe() == (
        "Partial plan: 3 of 8 entries, the 1 added or changed since main and those they name."
    )
    gone = Scope("HEAD~2", entries=0, changed=0, removed=2, total=5)
    assert gone.describe() == (
        "Partial plan: 0 of 5 entries, the 0 added or changed since HEAD~2 and those they "
        "name; 2 removed since then, left to the full plan."
    )
    full = Scope("v1", 8, 8, 0, 8, "the settings changed since v1")
    assert full.describe() == "Full plan of all 8 entries (the settings changed since v1)."
    assert full.to_dict() == {
        "partial": False,
        "changed_since": "v1",
        "entries": 8,
        "changed": 8,
        "removed": 0,
        "total_entries": 8,
        "full_reason": "the settings changed since v1",
    }


# `--changed-since REF`'s partial desired state keeps the files it was loaded from, in their order
# (what `validate` sorts its problems by and counts in its `Valid:` line).


def test_a_partial_desired_state_keeps_its_files(tmp_path: Path) -> None:
    folder = committed_tenant(tmp_path)
    (folder / "10-base.yaml").write_text(BASE.replace("bob@", "robert@"), encoding="utf-8")
    desired, scope = changed_since("HEAD", [folder], load([folder]), load)
    assert (scope.partial, scope.changed, scope.entries) == (True, 1, 1)
    assert [getattr(user, "username", None) for user in desired.entries("users")] == ["bob"]
    assert desired.files == (str(folder / "10-base.yaml"), str(folder / "20-site.yaml"))


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
