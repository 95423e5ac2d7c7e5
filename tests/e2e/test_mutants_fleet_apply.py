"""`apply --env '*' --target KIND` applies only what the selection names in each
environment of the fleet, as the plan it showed, and leaves the rest for a later run."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from reconciler.sandbox.process import SandboxProcess
from tests.e2e.test_fleet import TENANTS, cli, fleet  # noqa: F401 (the fixture)

pytestmark = pytest.mark.e2e


def test_a_targeted_fleet_apply_applies_only_the_target(
    fleet: tuple[Path, SandboxProcess],  # noqa: F811
) -> None:
    project, sandbox = fleet
    applied = cli(project, sandbox, "apply", "--env", "*", "--target", "companies", "--yes")
    assert applied.returncode == 0, applied.stderr
    assert f"Applied 3 environment(s): {', '.join(TENANTS)}." in applied.stderr
    again = cli(project, sandbox, "plan", "--env", "acme", "--format", "json")
    assert again.returncode == 0, again.stderr
    kinds = {change["address"].split("[")[0] for change in _changes(again.stdout)}
    assert kinds == {"departments", "users"}  # the companies are there, the rest is to come


def _changes(text: str) -> list[dict[str, str]]:
    return [c for c in json.loads(text)["changes"] if c["action"] != "no-op"]
