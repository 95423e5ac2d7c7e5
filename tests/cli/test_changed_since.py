"""`--changed-since` as the CLI prepares it (cli/changed.py): the old revision's manifests
are loaded with the same --var-file values as the current ones; --prune is refused with
it; what the plan covers is said on stderr."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from reconciler.errors import UsageError
from reconciler.manifest.models import Kind
from reconciler.manifest.validate import validate_manifests
from reconciler.manifest.varfiles import load_var_files
from reconciler.run.inputs import announce, narrowed
from reconciler.run.scope import Scope
from tests.planning.test_changed_since import git

MANIFEST = """\
companies:
  - name: ${COMPANY}
    notes: {notes}
  - name: Globex
"""


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("COMPANY", raising=False)
    (tmp_path / "m").mkdir()
    (tmp_path / "vars.yaml").write_text("COMPANY: Acme\n", encoding="utf-8")
    (tmp_path / "m" / "c.yaml").write_text(MANIFEST.replace("{notes}", "one"), encoding="utf-8")
    git(tmp_path, "init", "-q")
    git(tmp_path, "add", "-A")
    git(tmp_path, "commit", "-qm", "first")
    (tmp_path / "m" / "c.yaml").write_text(MANIFEST.replace("{notes}", "two"), encoding="utf-8")
    return tmp_path


def test_the_old_revision_is_loaded_with_the_var_files(repo: Path) -> None:
    paths, var_files = [Path("m")], [Path("vars.yaml")]
    desired = validate_manifests(paths, os.environ, load_var_files(var_files)).desired
    cut, scope = narrowed(desired, paths, var_files, "HEAD", prune=False)
    assert scope.describe() == (
        "Partial plan: 1 of 2 entries, the 1 added or changed since HEAD and those they name."
    )
    assert [c.model_dump()["name"] for c in cut.entries(Kind.companies)] == ["Acme"]


def test_without_changed_since_the_plan_is_whole(repo: Path) -> None:
    desired = validate_manifests([Path("m")], {"COMPANY": "Acme"}).desired
    assert narrowed(desired, [Path("m")], [], None, prune=True) == (desired, None)


def test_prune_needs_the_full_plan(repo: Path) -> None:
    desired = validate_manifests([Path("m")], {"COMPANY": "Acme"}).desired
    with pytest.raises(UsageError) as refused:
        narrowed(desired, [Path("m")], [], "HEAD", prune=True)
    assert str(refused.value) == (
        "--prune removes what the manifests leave out: it needs the full plan, without "
        "--changed-since"
    )


def test_what_the_plan_covers_is_said_on_stderr(capsys: pytest.CaptureFixture[str]) -> None:
    announce(Scope("main", 3, 2, 1, 9))
    announce(None)
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err == (
        "Partial plan: 3 of 9 entries, the 2 added or changed since main and those they "
        "name; 1 removed since then, left to the full plan.\n"
    )
