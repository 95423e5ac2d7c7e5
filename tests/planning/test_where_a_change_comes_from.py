"""Where a change comes from (`source`, `file:line` of its manifest entry, shown by the
plan) when the manifests' folder has a colon in its name, as `tenant:eu` (a name Linux
and macOS allow): the line and column are split off the end, the path is kept whole."""

from __future__ import annotations

import asyncio
from pathlib import Path

from reconciler.kinds.register import RESOURCES
from reconciler.live import read_live
from reconciler.manifest.loader import load_manifests
from reconciler.planning.plan import plan, prune_kinds
from tests.planning.fakes import SnapshotClient


def test_the_source_of_a_change_keeps_a_path_with_colons(tmp_path: Path) -> None:
    folder = tmp_path / "tenant:eu"
    folder.mkdir()
    manifest = folder / "people.yaml"
    manifest.write_text("companies:\n  - name: Globex\n  - name: Initech\n", encoding="utf-8")
    desired = load_manifests([manifest], env={})
    helpdesk = SnapshotClient({"Departments": [], "Companies": [], "Users": []})
    live = asyncio.run(
        read_live(
            desired,
            RESOURCES,
            helpdesk=helpdesk,
            workspace=None,
            prune=prune_kinds(desired, False),
        )
    )
    result = plan(desired, live, resources=RESOURCES)
    assert [(c.address, c.source) for c in result.changes] == [
        ('companies["Globex"]', f"{manifest}:2"),
        ('companies["Initech"]', f"{manifest}:3"),
    ]
