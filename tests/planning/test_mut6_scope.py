"""`--changed-since REF`'s partial desired state keeps the files it was loaded from, in
their order (what `validate` sorts its problems by and counts in its `Valid:` line)."""

from __future__ import annotations

from pathlib import Path

from reconciler.run.scope import changed_since
from tests.planning.test_changed_since import load
from tests.planning.test_mutants_scope_cut import BASE, committed_tenant


def test_a_partial_desired_state_keeps_its_files(tmp_path: Path) -> None:
    folder = committed_tenant(tmp_path)
    (folder / "10-base.yaml").write_text(BASE.replace("bob@", "robert@"), encoding="utf-8")
    desired, scope = changed_since("HEAD", [folder], load([folder]), load)
    assert (scope.partial, scope.changed, scope.entries) == (True, 1, 1)
    assert [getattr(user, "username", None) for user in desired.entries("users")] == ["bob"]
    assert desired.files == (str(folder / "10-base.yaml"), str(folder / "20-site.yaml"))
