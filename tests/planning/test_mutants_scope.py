"""`--changed-since REF` with the manifests in a folder whose own name starts with a dot
(`.tenant/`, as some repositories keep configuration): hidden files and folders *inside*
the manifests' folder are left out as the loader leaves them out, but the folder given
is the user's choice, so its manifests at REF are read and the plan is partial."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from reconciler.manifest import DesiredState, validate_manifests
from reconciler.manifest.models import Kind
from reconciler.run.scope import changed_since
from tests.planning.test_changed_since import git

MANIFEST = """\
departments:
  - name: IT
  - name: Sales
"""


def load(paths: Sequence[Path]) -> DesiredState:
    return validate_manifests(list(paths), {}).desired


def test_manifests_in_a_hidden_folder_are_read_at_the_revision(tmp_path: Path) -> None:
    folder = tmp_path / ".tenant"
    (folder / ".drafts").mkdir(parents=True)
    (folder / "tenant.yaml").write_text(MANIFEST, encoding="utf-8")
    # A hidden folder inside is no manifest, then or now (the loader skips it too).
    (folder / ".drafts" / "old.yaml").write_text("departments: [{name: Legal}]\n")
    git(tmp_path, "init", "-q")
    git(tmp_path, "add", "-A")
    git(tmp_path, "commit", "-qm", "tenant")
    path = folder / "tenant.yaml"
    path.write_text(MANIFEST.replace("Sales", "Sales EMEA"), encoding="utf-8")
    desired, scope = changed_since("HEAD", [folder], load([folder]), load)
    assert scope.full_reason is None
    assert (scope.partial, scope.changed, scope.entries, scope.removed) == (True, 1, 1, 1)
    assert [getattr(d, "name", None) for d in desired.entries(Kind.departments)] == ["Sales EMEA"]
