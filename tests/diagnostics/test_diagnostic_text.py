"""Every diagnostic a plan can carry, as the line a person reads: `Diagnostic.text()`,
which is `location: address: message (remedy)`. One YAML file per group under `cases/`:
the manifest as written (so that locations name real lines), the API snapshot, options,
and the exact lines expected, in order. `{manifest}` stands for the manifest's path.

A service left out of `live` is not configured (its kinds are skipped)."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from ruamel.yaml import YAML

from reconciler.kinds.register import RESOURCES
from reconciler.live import read_live
from reconciler.manifest.loader import load_manifests
from reconciler.planning.plan import plan, prune_kinds
from reconciler.plans import Plan
from reconciler.plans.addresses import Selector
from tests.planning.fakes import SnapshotClient

CASES = sorted((Path(__file__).parent / "cases").glob("*.yaml"))


def plan_case(case: dict[str, Any], tmp_path: Path) -> tuple[Plan, Path]:
    manifest = tmp_path / "manifest.yaml"
    manifest.write_text(case["manifest"])
    desired = load_manifests([manifest], env={})
    live = case.get("live") or {}
    helpdesk = SnapshotClient(live["helpdesk"]) if "helpdesk" in live else None
    workspace = SnapshotClient(live["workspace"]) if "workspace" in live else None
    options = case.get("options") or {}
    prune = bool(options.get("prune"))
    # `read_without_prune`: the live state read for a plan without --prune, then planned
    # with it (what an embedding program could do by mistake).
    read_prune = prune_kinds(desired, prune and not options.get("read_without_prune"))
    state = asyncio.run(
        read_live(desired, RESOURCES, helpdesk=helpdesk, workspace=workspace, prune=read_prune)
    )
    result = plan(
        desired,
        state,
        resources=RESOURCES,
        prune=prune,
        targets=[Selector.parse(t) for t in options.get("targets", [])],
        excludes=[Selector.parse(t) for t in options.get("excludes", [])],
    )
    return result, manifest


@pytest.mark.parametrize("path", CASES, ids=[p.stem for p in CASES])
def test_diagnostic_lines(path: Path, tmp_path: Path) -> None:
    case = YAML(typ="safe").load(path.read_text())
    result, manifest = plan_case(case, tmp_path)
    expect = case.get("expect") or {}
    for severity in ("errors", "warnings"):
        wanted = [line.replace("{manifest}", str(manifest)) for line in expect.get(severity, [])]
        got = [d.text() for d in getattr(result, severity)]
        assert got == wanted, severity
    if "notes" in expect:  # notes ask nothing: a case lists them where it is about them
        notes = [line.replace("{manifest}", str(manifest)) for line in expect["notes"]]
        assert [d.text() for d in result.notes] == notes, "notes"
    for diagnostic in result.errors:
        assert diagnostic.severity == "error"
    for diagnostic in result.warnings:
        assert diagnostic.severity == "warning"
