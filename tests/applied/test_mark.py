"""The applied mark: which ref names are allowed, when a commit is recorded and when not
(with the one-line reason), and reading it back, in real repositories."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

import pytest

from reconciler.applied.mark import (
    Commit,
    NotRecorded,
    Recorded,
    Unknown,
    applied_commit,
    clean_head,
    partial_apply,
    record,
    ref_name,
)
from tests.applied.gitrepo import commit_all, git, new_repo, write

MANIFEST = "companies:\n  - name: Acme\n"
REF = "refs/reconciler/applied/default"


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    new_repo(root, {"manifests/tenant.yaml": MANIFEST, "README.md": "hello\n"})
    return root


def mark_of(root: Path, ref: str = REF) -> str | None:
    done = subprocess.run(
        ["git", "-C", str(root), "rev-parse", "--verify", "-q", ref], capture_output=True
    )
    return done.stdout.decode().strip() or None


def test_ref_name_is_per_environment_and_default_without_one() -> None:
    assert ref_name(None) == "refs/reconciler/applied/default"
    assert ref_name("prod-eu.1") == "refs/reconciler/applied/prod-eu.1"


NAMES = ["prod", "eu_west-1", "v1.2", "a..b", "x.lock", "ends.", ".starts", "a b", "a~1", "a^",
         "a:b", "a?", "a*", "a[b", "a\\b", "@", "a@{1}", "tab\there", "", "del\x7f"]  # fmt: skip
# Why each name git refuses is refused: a character it may not hold, or where it stands.
REASONS = {
    "a..b": "it holds '..'", "x.lock": "it ends with '.lock'", "ends.": "it ends with a dot",
    ".starts": "it starts with a dot", "a b": "it holds ' '", "a~1": "it holds '~'",
    "a^": "it holds '^'", "a:b": "it holds ':'", "a?": "it holds '?'", "a*": "it holds '*'",
    "a[b": "it holds '['", "a\\b": "it holds '\\\\'", "a@{1}": "it holds '@{'",
    "tab\there": "it holds '\\t'", "": "it is empty", "del\x7f": "it holds '\\x7f'",
}  # fmt: skip


@pytest.mark.parametrize("name", NAMES)
def test_ref_name_refuses_what_git_refuses(name: str) -> None:
    full = f"refs/reconciler/applied/{name}"
    git_refuses = subprocess.run(["git", "check-ref-format", full]).returncode != 0
    if git_refuses or not name:
        with pytest.raises(ValueError) as refused:
            ref_name(name)
        assert str(refused.value) == (
            f"the environment name {name!r} cannot name a git ref: {REASONS[name]}"
        )
    else:
        assert ref_name(name) == full


def test_ref_name_refuses_a_slash_that_would_nest_one_environment_in_another() -> None:
    with pytest.raises(ValueError) as refused:
        ref_name("eu/prod")
    assert (
        str(refused.value) == "the environment name 'eu/prod' cannot name a git ref: it holds '/'"
    )


def test_a_clean_work_tree_records_head(repo: Path) -> None:
    head = git(repo, "rev-parse", "HEAD")
    done = record(repo, [Path("manifests")], None)
    assert done == Recorded(REF, Commit(head))
    assert mark_of(repo) == head
    assert done.describe() == f"Recorded {head[:12]} as {REF}."


def test_a_second_apply_moves_the_mark(repo: Path) -> None:
    record(repo, [Path("manifests")], "prod")
    write(repo, "manifests/tenant.yaml", MANIFEST + "  - name: Globex\n")
    second = commit_all(repo)
    assert record(repo, [Path("manifests")], "prod") == Recorded(
        "refs/reconciler/applied/prod", Commit(second)
    )
    assert mark_of(repo, "refs/reconciler/applied/prod") == second
    assert mark_of(repo) is None  # another environment's mark is another ref


@pytest.mark.parametrize(
    ("change", "shown"),
    [
        ("unstaged", "manifests/tenant.yaml"),
        ("staged", "manifests/tenant.yaml"),
        ("untracked", "manifests/new.yaml"),
        ("ignored", "manifests/local.yaml"),
        ("deleted", "manifests/tenant.yaml"),
        ("moved out", "manifests/tenant.yaml"),
    ],
)
def test_uncommitted_manifests_are_not_recorded(repo: Path, change: str, shown: str) -> None:
    before = git(repo, "rev-parse", "HEAD")
    record(repo, [Path("manifests")], None)
    write(repo, "README.md", "x\n")
    commit_all(repo)
    if change in ("unstaged", "staged"):
        write(repo, "manifests/tenant.yaml", MANIFEST + "  - name: Globex\n")
        if change == "staged":
            git(repo, "add", "manifests/tenant.yaml")
    elif change == "untracked":
        write(repo, "manifests/new.yaml", MANIFEST)
    elif change == "ignored":
        write(repo, ".gitignore", "local.yaml\n")
        commit_all(repo)
        write(repo, "manifests/local.yaml", MANIFEST)
    elif change == "deleted":
        (repo / "manifests/tenant.yaml").unlink()
    else:
        git(repo, "mv", "manifests/tenant.yaml", "elsewhere.yaml")
    done = record(repo, [Path("manifests")], None)
    assert isinstance(done, NotRecorded)
    assert done.reason == f"the manifests have uncommitted changes ({shown})"
    assert mark_of(repo) == before  # the earlier mark stays


def test_changes_the_manifests_do_not_load_leave_the_record_alone(repo: Path) -> None:
    write(repo, "README.md", "changed\n")  # outside the manifest paths
    write(repo, "manifests/notes.txt", "not a manifest\n")
    write(repo, "manifests/.hidden/x.yaml", MANIFEST)  # the loader skips hidden paths
    assert isinstance(record(repo, [Path("manifests")], None), Recorded)


def test_a_manifest_file_given_by_name_counts_whatever_its_suffix(repo: Path) -> None:
    write(repo, "vars.json", "{}")
    commit_all(repo)
    write(repo, "vars.json", '{"a": 1}')
    done = record(repo, [Path("manifests"), Path("vars.json")], None)
    assert done == NotRecorded("the manifests have uncommitted changes (vars.json)")


def test_many_uncommitted_files_are_named_five_at_most(repo: Path) -> None:
    for index in range(7):
        write(repo, f"manifests/n{index}.yaml", MANIFEST)
    done = record(repo, [Path("manifests")], None)
    assert isinstance(done, NotRecorded)
    assert done.reason.endswith("manifests/n4.yaml and 2 more)")


def test_outside_git_nothing_is_recorded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(tmp_path))
    write(tmp_path / "plain", "tenant.yaml", MANIFEST)
    done = record(tmp_path / "plain", [Path("tenant.yaml")], None)
    assert done == NotRecorded("not in a git work tree")
    assert done.describe() == "Not recorded as applied: not in a git work tree."


def test_a_repository_without_commits_records_nothing(tmp_path: Path) -> None:
    git(tmp_path, "init", "-q")
    write(tmp_path, "tenant.yaml", MANIFEST)
    done = record(tmp_path, [Path("tenant.yaml")], None)
    assert done == NotRecorded("the git repository has no commits yet")


def test_manifests_outside_the_work_tree_record_nothing(repo: Path, tmp_path: Path) -> None:
    write(tmp_path, "outside.yaml", MANIFEST)
    done = record(repo, [tmp_path / "outside.yaml"], None)
    outside = tmp_path / "outside.yaml"
    assert done == NotRecorded(f"{outside} is outside the git work tree at {repo}")


def test_a_detached_head_is_recorded_as_its_commit(repo: Path) -> None:
    first = git(repo, "rev-parse", "HEAD")
    write(repo, "manifests/tenant.yaml", MANIFEST + "  - name: Globex\n")
    commit_all(repo)
    git(repo, "checkout", "-q", "--detach", first)
    assert record(repo, [Path("manifests")], None) == Recorded(REF, Commit(first))


def test_paths_are_relative_to_the_given_directory(repo: Path) -> None:
    assert isinstance(record(repo / "manifests", [Path("tenant.yaml")], None), Recorded)
    assert mark_of(repo) == git(repo, "rev-parse", "HEAD")


def test_a_saved_plan_records_the_commit_it_was_made_from(repo: Path) -> None:
    made_from = git(repo, "rev-parse", "HEAD")
    write(repo, "manifests/tenant.yaml", MANIFEST + "  - name: Globex\n")
    commit_all(repo)
    write(repo, "manifests/scratch.yaml", MANIFEST)  # not the plan's concern: it was checked
    assert record(repo, [Path("manifests")], None, commit=made_from[:10]) == Recorded(
        REF, Commit(made_from)
    )
    assert mark_of(repo) == made_from


def test_a_saved_plan_from_an_unknown_commit_records_nothing(repo: Path) -> None:
    done = record(repo, [Path("manifests")], None, commit="0" * 40)
    assert done == NotRecorded(f"the plan's commit {'0' * 12} is not in this repository")
    assert mark_of(repo) is None


def test_an_environment_git_cannot_name_records_nothing(repo: Path) -> None:
    done = record(repo, [Path("manifests")], "a..b")
    assert isinstance(done, NotRecorded)
    assert "cannot name a git ref" in done.reason


def test_clean_head_is_what_a_saved_plan_was_made_from(repo: Path) -> None:
    assert clean_head(repo, [Path("manifests")]) == Commit(git(repo, "rev-parse", "HEAD"))
    write(repo, "manifests/tenant.yaml", "")
    assert isinstance(clean_head(repo, [Path("manifests")]), NotRecorded)


def test_the_mark_reads_back_as_the_commit(repo: Path) -> None:
    record(repo, [Path("manifests")], "prod")
    assert applied_commit(repo, "prod") == Commit(git(repo, "rev-parse", "HEAD"))


def test_without_a_mark_there_is_nothing_to_say(repo: Path) -> None:
    assert applied_commit(repo, None) == Unknown(f"no {REF} in the repository", marked=False)


def test_outside_git_there_is_no_mark(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(tmp_path))
    assert applied_commit(tmp_path, None) == Unknown("not in a git work tree", marked=False)


def test_a_mark_on_a_commit_a_shallow_clone_lacks_is_said(repo: Path, tmp_path: Path) -> None:
    first = git(repo, "rev-parse", "HEAD")
    write(repo, "manifests/tenant.yaml", MANIFEST + "  - name: Globex\n")
    commit_all(repo)
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", "--depth", "1", repo.as_uri(), str(clone))
    # As a fetched ref whose commit the shallow history lacks (update-ref refuses it).
    write(clone, ".git/refs/reconciler/applied/default", first + "\n")
    found = applied_commit(clone, None)
    assert isinstance(found, Unknown)
    assert found.marked
    assert found.reason.startswith(f"{REF} names {first[:12]}, which this clone does not have")


def test_a_repository_without_commits_has_no_mark(tmp_path: Path) -> None:
    git(tmp_path, "init", "-q")
    assert applied_commit(tmp_path, None) == Unknown(f"no {REF} in the repository")


@pytest.mark.parametrize(
    ("how", "reason"),
    [
        ({}, None),
        ({"interrupted": True, "failed": 2}, "the apply was interrupted"),
        ({"failed": 1}, "1 change failed"),
        ({"failed": 1_200, "targets": ["users"]}, "1,200 changes failed"),
        ({"targets": ["users"]}, "a partial apply (--target) applies part of the commit"),
        ({"excludes": ["assets"]}, "a partial apply (--exclude) applies part of the commit"),
    ],
)
def test_only_a_whole_apply_is_recorded(how: dict[str, Any], reason: str | None) -> None:
    found = partial_apply(**how)
    assert found == (None if reason is None else NotRecorded(reason))
