"""Unmanaged objects (issue 12, item 6) as a drift job meets them, against the sandbox
process: an object removed from the manifests shows as unmanaged in text, Markdown and
JSON with the coverage of its kind; it changes no exit code unless --fail-on-unmanaged,
which exits 1 naming it; --prune makes it a removal instead, after which it is gone."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.test_apply_cli import Start, cli, converge, edit, start, workdir

__all__ = ["start", "workdir"]  # the fixtures

pytestmark = pytest.mark.e2e


def without(username: str) -> Any:
    def change(data: Any) -> None:
        data["users"][:] = [u for u in data["users"] if u["username"] != username]

    return change


def test_a_user_left_out_of_the_manifests_is_unmanaged(start: Start, workdir: Path) -> None:
    sandbox = start("acme")
    converge(workdir, sandbox)
    as_json = cli(workdir, sandbox.process, "plan", "acme", "--format", "json")
    assert as_json.returncode == 0, as_json.stderr
    before = json.loads(as_json.stdout)
    # Converged: nothing unmanaged, and not the administrator reconciler runs as.
    assert before["unmanaged"]["users"] == []
    assert before["coverage"]["users"]["percent"] == 100.0
    assert before["not_read_in_full"]["automation_rules"] == "the API cannot list them"
    users = before["coverage"]["users"]

    edit(workdir / "acme" / "people.yaml", without("carla"))
    drift = cli(workdir, sandbox.process, "plan", "acme", "--detailed-exitcode")
    assert drift.returncode == 0, drift.stdout + drift.stderr  # not a change
    assert "No changes" in drift.stdout
    share = f"{users['live'] - 1} of {users['live']}"
    assert (
        f"users                {share} (" in drift.stdout and 'unmanaged: "carla"' in drift.stdout
    )

    data = json.loads(cli(workdir, sandbox.process, "plan", "acme", "--format", "json").stdout)
    assert data["unmanaged"]["users"] == ["carla"] and data["changes"] == []
    assert data["coverage"]["users"]["managed"] == users["live"] - 1
    markdown = cli(workdir, sandbox.process, "plan", "acme", "--format", "markdown").stdout
    assert "| users |" in markdown and '- `users["carla"]`' in markdown

    failed = cli(workdir, sandbox.process, "plan", "acme", "--fail-on-unmanaged")
    assert failed.returncode == 1
    assert "1 unmanaged live object and --fail-on-unmanaged" in failed.stderr
    assert "users: carla" in failed.stderr and "Traceback" not in failed.stderr

    # --prune makes it a removal (disable), and once applied nothing is unmanaged.
    pruned = cli(workdir, sandbox.process, "plan", "acme", "--prune", "--format", "json")
    planned = json.loads(pruned.stdout)
    assert [c["address"] for c in planned["changes"]] == ['users["carla"]']
    assert planned["unmanaged"]["users"] == []
    applied = cli(workdir, sandbox.process, "apply", "acme", "--prune", "--yes")
    assert applied.returncode == 0, applied.stderr
    done = cli(workdir, sandbox.process, "plan", "acme", "--fail-on-unmanaged", "--prune")
    assert done.returncode == 0, done.stdout + done.stderr
