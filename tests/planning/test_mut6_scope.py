"""`--changed-since REF`'s partial desired state keeps the files it was loaded from, in
their order (what `validate` sorts its problems by and counts in its `Valid:` line)."""

from __future__ import annotations

from pathlib import Path

from reconciler.planning.scope import changed_since
from tests.planning.test_changed_since import git, load
from tests.planning.test_mutants_scope_cut import BASE, SITE


def test_a_partial_desired_state_keeps_its_files(tmp_path: Path) -> None:
    folder = tmp_path / "manifests"
    folder.mkdir()
    (folder / "10-base.yaml").write_text(BASE, encoding="utf-8")
    (folder / "20-site.yaml").write_text(SITE, encoding="utf-8")
    git(tmp_path, "init", "-q")
    git(tmp_path, "add", "-A")
    git(tmp_path, "commit", "-qm", "tenant")
    (folder / "10-base.yaml").write_text(BASE.replace("bob@", "robert@"), encoding="utf-8")
    desired, scope = changed_since("HEAD", [folder], load([folder]), load)
    assert (scope.partial, scope.changed, scope.entries) == (True, 1, 1)
    assert [getattr(user, "username", None) for user in desired.entries("users")] == ["bob"]
    assert desired.files == (str(folder / "10-base.yaml"), str(folder / "20-site.yaml"))
