"""The manifests as of a commit: written under the caller's directory in the repository's
layout, the work tree left exactly as it was."""

from __future__ import annotations

from pathlib import Path

import pytest

from reconciler.applied.compare import manifests_at
from reconciler.applied.mark import Commit, GitFailure
from tests.applied.gitrepo import commit_all, git, new_repo, write

OLD = "companies:\n  - name: Acme\n"
NEW = "companies:\n  - name: Acme\n  - name: Globex\n"


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    new_repo(
        root,
        {
            "manifests/tenant.yaml": OLD,
            "manifests/teams/it.yaml": "departments:\n  - name: IT\n",
            "vars/prod.yaml": "region: eu\n",
            "reconciler.yaml": "environments: {}\n",
        },
    )
    return root


def test_the_files_are_those_of_the_commit_and_the_work_tree_is_untouched(
    repo: Path, tmp_path: Path
) -> None:
    first = Commit(git(repo, "rev-parse", "HEAD"))
    write(repo, "manifests/tenant.yaml", NEW)
    write(repo, "manifests/added.yaml", NEW)
    commit_all(repo)
    write(repo, "manifests/tenant.yaml", NEW + "# uncommitted\n")
    status = git(repo, "status", "--porcelain")
    dest = tmp_path / "dest"
    dest.mkdir()
    given = [Path("manifests"), Path("vars/prod.yaml"), Path("reconciler.yaml")]
    snapshot = manifests_at(repo, first, given, dest)
    assert snapshot.copies == {
        Path("manifests"): dest / "manifests",
        Path("vars/prod.yaml"): dest / "vars/prod.yaml",
        Path("reconciler.yaml"): dest / "reconciler.yaml",
    }
    assert (dest / "manifests/tenant.yaml").read_text() == OLD
    assert (dest / "manifests/teams/it.yaml").is_file()
    assert not (dest / "manifests/added.yaml").exists()  # not there at that commit
    assert (repo / "manifests/tenant.yaml").read_text() == NEW + "# uncommitted\n"
    assert git(repo, "status", "--porcelain") == status
    assert git(repo, "rev-parse", "HEAD") != first.id


def test_paths_the_commit_did_not_have_are_missing(repo: Path, tmp_path: Path) -> None:
    first = Commit(git(repo, "rev-parse", "HEAD"))
    write(repo, "vars/later.yaml", "x: 1\n")
    commit_all(repo)
    given = [Path("manifests/tenant.yaml"), Path("vars/later.yaml")]
    snapshot = manifests_at(repo, first, given, tmp_path)
    assert snapshot.missing == (Path("vars/later.yaml"),)
    assert snapshot.paths(given) == [tmp_path / "manifests/tenant.yaml"]


def test_paths_relative_to_a_subdirectory(repo: Path, tmp_path: Path) -> None:
    head = Commit(git(repo, "rev-parse", "HEAD"))
    snapshot = manifests_at(repo / "manifests", head, [Path("tenant.yaml")], tmp_path)
    assert snapshot.paths([Path("tenant.yaml")]) == [tmp_path / "manifests/tenant.yaml"]


def test_a_commit_the_repository_lacks_is_a_one_line_failure(repo: Path, tmp_path: Path) -> None:
    with pytest.raises(GitFailure) as failure:
        manifests_at(repo, Commit("1" * 40), [Path("manifests")], tmp_path)
    assert "\n" not in str(failure.value)
    assert str(failure.value).startswith("git ls-tree: ")


def test_paths_are_literal_not_patterns(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    new_repo(root, {"team*/a.yaml": OLD, "teams/b.yaml": NEW, "[x]/c.yaml": OLD, "x/d.yaml": NEW})
    head = Commit(git(root, "rev-parse", "HEAD"))
    dest = tmp_path / "dest"
    snapshot = manifests_at(root, head, [Path("team*"), Path("[x]")], dest)
    assert sorted(p.relative_to(dest).as_posix() for p in dest.rglob("*.yaml")) == [
        "[x]/c.yaml",
        "team*/a.yaml",
    ]
    assert snapshot.missing == ()
