"""Labels end to end: a real repository with an applied mark, the real planner against one
live state read once, and every way the labels can be left out (each a one-line reason,
never a wrong label)."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from reconciler.applied.compare import Labelled, Snapshot, Unlabelled, labels_for
from reconciler.applied.labels import Cause, counts_line
from reconciler.applied.mark import record
from reconciler.kinds.register import RESOURCES
from reconciler.live import LiveState, read_live
from reconciler.manifest.desired import DesiredState
from reconciler.manifest.loader import load_manifests
from reconciler.planning.plan import plan
from tests.applied.gitrepo import commit_all, git, new_repo, write
from tests.planning.fakes import SnapshotClient

PATHS = [Path("manifests")]


def tenant(acme: str, globex: str, initech: str) -> str:
    return (
        "companies:\n"
        f"  - {{name: Acme, notes: {acme}}}\n"
        f"  - {{name: Globex, notes: {globex}}}\n"
        f"  - {{name: Initech, notes: {initech}}}\n"
        "  - {name: Umbrella, notes: same}\n"
    )


LIVE = {
    "Companies": [
        {"CompanyID": 1, "Name": "Acme", "EmailDomain": "", "Notes": "by hand"},
        {"CompanyID": 2, "Name": "Globex", "EmailDomain": "", "Notes": "applied"},
        {"CompanyID": 3, "Name": "Initech", "EmailDomain": "", "Notes": "by hand"},
        {"CompanyID": 4, "Name": "Umbrella", "EmailDomain": "", "Notes": "same"},
    ]
}


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """Applied with every note `applied`; since then, Globex's and Initech's merged."""
    root = tmp_path / "repo"
    new_repo(root, {"manifests/tenant.yaml": tenant("applied", "applied", "applied")})
    record(root, PATHS, None)
    write(root, "manifests/tenant.yaml", tenant("applied", "merged", "merged"))
    commit_all(root, "merged, not applied")
    return root


class Planner:
    """Reads the live state once, for the current manifests, and plans any manifests
    against it; counts the reads."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.client = SnapshotClient(LIVE)
        self.desired = self.load([root / "manifests"])
        self.live: LiveState = asyncio.run(
            read_live(self.desired, RESOURCES, helpdesk=self.client, workspace=None)
        )

    def load(self, paths: list[Path]) -> DesiredState:
        return load_manifests(paths, env={})

    def real(self) -> dict[str, Any]:
        return plan(self.desired, self.live, resources=RESOURCES).to_dict()

    def applied(self, snapshot: Snapshot) -> Mapping[str, Any]:
        desired = self.load(snapshot.paths(PATHS))
        return plan(desired, self.live, resources=RESOURCES).to_dict()


def test_a_hand_change_is_drift_and_a_merge_not_applied_is_pending(repo: Path) -> None:
    planner = Planner(repo)
    real = planner.real()
    reads = list(planner.client.reads)
    found = labels_for(real, cwd=repo, paths=PATHS, environment=None, plan_applied=planner.applied)
    assert isinstance(found, Labelled)
    assert found.causes == {
        'companies["Acme"]': Cause.drift,
        'companies["Globex"]': Cause.pending,
        'companies["Initech"]': Cause.both,
    }
    assert counts_line(found.causes) == "Causes: 1 drift, 1 pending, 1 drift+pending."
    assert planner.client.reads == reads  # the applied plan used the live state read


def test_after_the_merge_is_applied_only_the_hand_change_is_drift(repo: Path) -> None:
    record(repo, PATHS, None)  # the second apply moves the mark
    planner = Planner(repo)
    found = labels_for(
        planner.real(), cwd=repo, paths=PATHS, environment=None, plan_applied=planner.applied
    )
    assert isinstance(found, Labelled)
    assert set(found.causes.values()) == {Cause.drift}


def test_without_a_mark_the_plan_says_nothing(repo: Path) -> None:
    planner = Planner(repo)
    found = labels_for(
        planner.real(), cwd=repo, paths=PATHS, environment="prod", plan_applied=planner.applied
    )
    assert found == Unlabelled("no refs/reconciler/applied/prod in the repository", notice=False)


def test_manifests_that_no_longer_load_omit_the_labels(repo: Path) -> None:
    write(repo, "manifests/tenant.yaml", "companies:\n  - {name: Acme, colour: red}\n")
    broken = commit_all(repo, "a field this version does not know")
    record(repo, PATHS, None)
    write(repo, "manifests/tenant.yaml", tenant("applied", "merged", "merged"))
    commit_all(repo)
    planner = Planner(repo)
    found = labels_for(
        planner.real(), cwd=repo, paths=PATHS, environment=None, plan_applied=planner.applied
    )
    assert isinstance(found, Unlabelled)
    assert found.notice
    where = f"refs/reconciler/applied/default ({broken[:12]})"
    assert found.reason.startswith(f"the manifests at {where} do not load: manifests/tenant.yaml:")
    assert "\n" not in found.describe()
    assert found.describe().startswith("Labels omitted: the manifests at")


def test_a_mark_on_a_commit_without_the_manifests_omits_the_labels(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    new_repo(root, {"README.md": "x\n"})
    record(root, [Path("README.md")], None)
    write(root, "manifests/tenant.yaml", tenant("applied", "merged", "merged"))
    commit_all(root)
    planner = Planner(root)
    found = labels_for(
        planner.real(), cwd=root, paths=PATHS, environment=None, plan_applied=planner.applied
    )
    assert isinstance(found, Unlabelled)
    assert found.reason.endswith("has none of the manifests")


def test_a_mark_a_shallow_clone_lacks_omits_the_labels(repo: Path, tmp_path: Path) -> None:
    applied = git(repo, "rev-parse", "refs/reconciler/applied/default")
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", "--depth", "1", repo.as_uri(), str(clone))
    write(clone, ".git/refs/reconciler/applied/default", applied + "\n")
    planner = Planner(clone)
    found = labels_for(
        planner.real(), cwd=clone, paths=PATHS, environment=None, plan_applied=planner.applied
    )
    assert isinstance(found, Unlabelled)
    assert found.notice
    assert "which this clone does not have" in found.reason


def test_a_detached_head_is_labelled_as_any_checkout(repo: Path) -> None:
    git(repo, "checkout", "-q", "--detach", "HEAD")
    planner = Planner(repo)
    found = labels_for(
        planner.real(), cwd=repo, paths=PATHS, environment=None, plan_applied=planner.applied
    )
    assert isinstance(found, Labelled)
    assert found.causes['companies["Globex"]'] is Cause.pending
