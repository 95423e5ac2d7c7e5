"""The example fleet's overlaid entry names both lines in a real plan (`plan --env acme`
against the three-tenant sandbox): the baseline's and the tenant's overlay's."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from reconciler.sandbox.process import SandboxProcess
from tests.e2e.test_fleet import cli, fleet  # noqa: F401 (a fixture)

pytestmark = pytest.mark.e2e


def test_an_overlaid_entry_names_the_baseline_and_the_overlay(
    fleet: tuple[Path, SandboxProcess],  # noqa: F811
) -> None:
    project, sandbox = fleet
    done = cli(project, sandbox, "plan", "--env", "acme", "--format", "json")
    assert done.returncode == 0, done.stderr
    changes = {c["address"]: c for c in json.loads(done.stdout)["changes"]}
    oncall = changes['users["msp-oncall"]']
    baseline, overlay = oncall["sources"]
    assert oncall["source"] == baseline and baseline.startswith("baseline/people.yaml:")
    assert overlay.startswith("tenants/acme/overlays.yaml:")
    for where, wanted in ((baseline, "username: msp-oncall"), (overlay, "username: msp-oncall")):
        file, line = where.rsplit(":", 1)
        assert wanted in (project / file).read_text(encoding="utf-8").splitlines()[int(line) - 1]
    assert all("sources" not in c for a, c in changes.items() if a != 'users["msp-oncall"]')
    text = cli(project, sandbox, "plan", "--env", "acme")
    assert f"# from {baseline}, refined at {overlay}" in text.stdout
