"""Data-driven planner cases: one YAML file per case under `cases/`, holding the manifests
(`desired`), an API snapshot (`live`), options, and the expected changes, errors and
warnings. Adding a case is adding a file."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from ruamel.yaml import YAML

from reconciler.kinds.register import RESOURCES
from reconciler.live import LiveState, read_live
from reconciler.manifest.loader import load_manifests
from reconciler.planning.plan import plan, prune_kinds
from reconciler.plans import Plan
from reconciler.plans.addresses import Selector
from tests.planning.fakes import SnapshotClient

CASES = sorted((Path(__file__).parent / "cases").glob("*.yaml"))


@dataclass
class CaseRun:
    """A case read from its live snapshot and planned: the plan, each service's fake
    client (what was read), and the live state read."""

    plan: Plan
    helpdesk: SnapshotClient
    workspace: SnapshotClient
    live: LiveState


def plan_case(case: dict[str, Any], tmp_path: Path) -> CaseRun:
    manifest = tmp_path / "manifest.yaml"
    yaml = YAML()
    with manifest.open("w") as fh:
        yaml.dump(case.get("desired") or {}, fh)
    desired = load_manifests([manifest], env={})
    live_case = case.get("live") or {}
    helpdesk = SnapshotClient(live_case.get("helpdesk") or {})
    workspace = SnapshotClient(live_case.get("workspace") or {})
    options = case.get("options") or {}
    pruned = prune_kinds(desired, bool(options.get("prune")))
    live = asyncio.run(
        read_live(desired, RESOURCES, helpdesk=helpdesk, workspace=workspace, prune=pruned)
    )
    result = plan(
        desired,
        live,
        resources=RESOURCES,
        prune=bool(options.get("prune")),
        targets=[Selector.parse(t) for t in options.get("targets", [])],
        excludes=[Selector.parse(t) for t in options.get("excludes", [])],
    )
    return CaseRun(result, helpdesk, workspace, live)


def run_case(case: dict[str, Any], tmp_path: Path) -> tuple[Plan, SnapshotClient, SnapshotClient]:
    done = plan_case(case, tmp_path)
    return done.plan, done.helpdesk, done.workspace


def _plain(value: Any) -> Any:
    """ruamel's containers as plain Python, for comparison."""
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value


@pytest.mark.parametrize("path", CASES, ids=[p.stem for p in CASES])
def test_case(path: Path, tmp_path: Path) -> None:
    case = _plain(YAML(typ="safe").load(path.read_text()))
    result, helpdesk, _ = run_case(case, tmp_path)
    expect = case.get("expect") or {}
    got = result.to_dict()
    for listing in ("changes", "asserted"):  # asserted: sent on every apply, not changes
        _check_changes(got.get(listing, []), expect.get(listing, []))
    for severity in ("errors", "warnings", "notes"):
        messages = [_diagnostic_text(d) for d in got.get(severity, [])]
        wanted = expect.get(severity, [])
        assert len(messages) == len(wanted), messages
        for message, fragment in zip(messages, wanted, strict=True):
            assert fragment in message, (fragment, message)
    if "reads" in expect:
        assert sorted(helpdesk.reads) == sorted(expect["reads"])


def _check_changes(got: list[dict[str, Any]], want_changes: list[dict[str, Any]]) -> None:
    assert [c["address"] for c in got] == [c["address"] for c in want_changes]
    for have, want in zip(got, want_changes, strict=True):
        assert have["action"] == want["action"], have["address"]
        if "fields" in want:
            assert have["fields"] == want["fields"], have["address"]
        if "operations" in want:
            assert have["operations"] == want["operations"], have["address"]
        if "depends_on" in want:
            assert have.get("depends_on") == want["depends_on"], have["address"]
        if "renamed_from" in want:  # a rename (`previously:`)
            assert have.get("renamed_from") == want["renamed_from"], have["address"]
        if "rename_hints" in want:  # advice: an unlisted object this create looks like
            assert have.get("rename_hints", []) == want["rename_hints"], have["address"]
        if "reason" in want:  # the line that says why, where the change is not obvious
            assert have.get("reason", "") == want["reason"], have["address"]


def _diagnostic_text(d: dict[str, Any]) -> str:
    return " ".join(str(d.get(k, "")) for k in ("address", "message", "remedy"))
