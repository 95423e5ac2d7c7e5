"""`--changed-since REF` keeps where things were written: the partial desired state it
plans from still locates the settings (a category's `section_ids` problem names its line)
and the overlay files that refined an entry (the plan says "refined at")."""

from __future__ import annotations

from pathlib import Path

from reconciler.run.scope import Scope, changed_since
from tests.planning.test_changed_since import git, load

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
