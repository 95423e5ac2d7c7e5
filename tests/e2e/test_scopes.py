"""A helpdesk shared with customers (DESIGN §9), end to end against the sandbox process
seeded with `shared` (acme plus 20,000 customers of 50 client companies and 2,000
discovered assets): examples/shared, whose scope is Acme's companies, applies and then
plans no change; coverage speaks of the scope only; `--prune` with the ownership marker
disables the Acme users left out of the manifests that carry it (hana, whom the first
apply created, and kim), keeps lee (an Acme account without the marker, reported as
unmanaged), and leaves every customer alone."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests.e2e.test_apply_cli import Start, cli, edit, entry, start

__all__ = ["start"]  # the fixture

pytestmark = pytest.mark.e2e

SHARED = Path(__file__).parents[2] / "examples" / "shared"


def test_a_scoped_tenant_applies_plans_nothing_more_and_prunes_only_its_slice(
    start: Start, tmp_path: Path
) -> None:
    shutil.copytree(SHARED, tmp_path / "shared")
    sandbox = start("shared")
    applied = cli(tmp_path, sandbox.process, "apply", "shared", "--yes")
    assert applied.returncode == 0, applied.stderr

    again = cli(tmp_path, sandbox.process, "plan", "shared", "--format", "json")
    assert again.returncode == 0, again.stderr
    plan = json.loads(again.stdout)
    assert plan["changes"] == []
    users = plan["coverage"]["users"]
    assert users["live"] == users["managed"] + 2  # kim and lee, in the scope, unlisted
    assert plan["coverage"]["users"]["live"] < 20
    assert plan["coverage"]["assets"]["live"] < 30
    assert plan["coverage"]["companies"]["live"] == 4  # the Client companies are outside
    assert plan["warnings"] == []  # Globex Logistics exists now

    edit(
        tmp_path / "shared" / "people.yaml",
        lambda d: d["users"].remove(entry(d["users"], "username", "hana")),
    )
    pruned = cli(tmp_path, sandbox.process, "plan", "shared", "--prune", "--format", "json")
    assert pruned.returncode == 0, pruned.stderr
    changes = json.loads(pruned.stdout)["changes"]
    assert [c["address"] for c in changes] == ['users["hana"]', 'users["kim"]']
    assert {c["action"] for c in changes} == {"disable"}
    done = cli(tmp_path, sandbox.process, "apply", "shared", "--prune", "--yes")
    assert done.returncode == 0, done.stderr
    text = cli(tmp_path, sandbox.process, "plan", "shared", "--prune", "--detailed-exitcode")
    assert text.returncode == 0, text.stdout + text.stderr
    assert "No changes" in text.stdout and "customer" not in text.stdout
    after = cli(tmp_path, sandbox.process, "plan", "shared", "--prune", "--format", "json")
    final = json.loads(after.stdout)
    assert final["unmanaged"]["users"] == ["lee"]  # kept: no marker
    assert final["coverage"]["users"]["live"] == final["coverage"]["users"]["managed"] + 1
