"""`export --env '*' --out DIR` (docs/environments.md): each environment's live state in
its own directory, `DIR/NAME`, through its own connection; refused without --out, and
before any call when a directory already holds manifests; an unreachable environment is
reported and the others are exported. Against the three-tenant sandbox, after the example
fleet is applied."""

from __future__ import annotations

from pathlib import Path

import pytest

from reconciler.sandbox.process import SandboxProcess
from tests.e2e.test_fleet import TENANTS, cli, fleet, requests_seen  # noqa: F401 (a fixture)
from tests.e2e.test_fleet_comments import unreachable

pytestmark = pytest.mark.e2e


def test_each_environment_is_exported_to_its_own_directory(
    fleet: tuple[Path, SandboxProcess],  # noqa: F811
) -> None:
    project, sandbox = fleet
    applied = cli(project, sandbox, "apply", "--env", "*", "--yes")
    assert applied.returncode == 0, applied.stderr

    before = {tenant: requests_seen(sandbox, tenant) for tenant in TENANTS}
    alone = cli(project, sandbox, "export", "--env", "*")
    assert alone.returncode == 1
    assert (
        "export over several environments (acme, globex, initech) needs --out DIR" in alone.stderr
    )
    (project / "exported" / "globex").mkdir(parents=True)
    (project / "exported" / "globex" / "mine.yaml").write_text("companies: []\n")
    taken = cli(project, sandbox, "export", "--env", "*", "--out", "exported")
    assert taken.returncode == 1 and "--out exported/globex already holds manifests" in taken.stderr
    assert {tenant: requests_seen(sandbox, tenant) for tenant in TENANTS} == before
    (project / "exported" / "globex" / "mine.yaml").unlink()

    done = cli(project, sandbox, "export", "--env", "*", "--out", "exported", "--max-parallel", "2")
    assert done.returncode == 0, done.stderr
    assert "Exported 3 environment(s) to exported." in done.stderr
    companies = {
        name: (project / "exported" / name / "companies.yaml").read_text("utf-8")
        for name in TENANTS
    }
    assert "Globex Ltd" in companies["globex"] and "Globex Ltd" not in companies["acme"]
    users = (project / "exported" / "acme" / "users.yaml").read_text("utf-8")
    assert "Acme House, Reading" in users  # acme's overlay, as applied to acme alone
    for name in TENANTS:  # each export plans to nothing against its own tenant
        plan = cli(project, sandbox, "plan", f"exported/{name}", "--detailed-exitcode",
                   HELPDESK_URL=sandbox.env[f"{name.upper()}_HELPDESK_URL"],
                   HELPDESK_TOKEN=sandbox.env[f"{name.upper()}_HELPDESK_TOKEN"],
                   WORKSPACE_URL=sandbox.env[f"{name.upper()}_WORKSPACE_URL"],
                   WORKSPACE_API_KEY=sandbox.env[f"{name.upper()}_WORKSPACE_API_KEY"])  # fmt: skip
        assert plan.returncode == 0, (name, plan.stdout, plan.stderr)


def test_an_unreachable_environment_does_not_stop_the_others(
    fleet: tuple[Path, SandboxProcess],  # noqa: F811
) -> None:
    project, sandbox = fleet
    closed = unreachable(project, sandbox, "globex")
    done = cli(project, sandbox, "export", "--env", "*", "--out", "exported")
    assert done.returncode == 1
    assert "Error: globex: " in done.stderr and f"127.0.0.1:{closed}" in done.stderr
    assert "1 of 3 environment(s) not exported: globex." in done.stderr
    assert sorted(p.name for p in (project / "exported").iterdir()) == ["acme", "initech"]
