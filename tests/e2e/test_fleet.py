"""The example fleet (examples/fleet: a baseline and three tenants) against a three-tenant
`sandbox serve --tenant ...` on a free loopback port: plans and applies; one unreachable
tenant leaves two whole plans, one clear error and exit 1; the wrong-tenant guard for
every way a URL can be given, before any request; `apply --env '*' --target KIND` applies
only what the selection names in each environment, leaving the rest for a later run."""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import httpx
import pytest

from reconciler.sandbox.process import SandboxProcess
from tests.e2e.conftest import Serve

pytestmark = pytest.mark.e2e
EXAMPLE = Path(__file__).parents[2] / "examples" / "fleet"
TENANTS = ("acme", "globex", "initech")


@pytest.fixture
def fleet(serve: Serve, tmp_path: Path) -> tuple[Path, SandboxProcess]:
    args = [arg for name in TENANTS for arg in ("--tenant", name)]
    sandbox = serve(tmp_path / "sandbox.db", *args, "--rate-limit", "0")
    port = sandbox.env["ACME_HELPDESK_URL"].split(":")[2].split("/")[0]
    project = tmp_path / "fleet"
    shutil.copytree(EXAMPLE, project)
    text = (project / "reconciler.yaml").read_text(encoding="utf-8")
    (project / "reconciler.yaml").write_text(text.replace(":8765/", f":{port}/"), "utf-8")
    return project, sandbox


def cli(
    cwd: Path, sandbox: SandboxProcess, *args: str, **overrides: str
) -> subprocess.CompletedProcess[str]:
    """`reconciler ARGS` with the tenants' variables only (no plain connection ones)."""
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("HELPDESK_", "WORKSPACE_"))}
    return subprocess.run(
        [sys.executable, "-m", "reconciler", *args],
        cwd=cwd,
        env={**clean, **sandbox.env, **overrides},
        capture_output=True,
        text=True,
        timeout=180,
        stdin=subprocess.DEVNULL,
    )


def requests_seen(sandbox: SandboxProcess, tenant: str) -> int:
    base = sandbox.env[f"{tenant.upper()}_HELPDESK_URL"].rsplit("/helpdesk", 1)[0]
    return len(httpx.get(f"{base}/_sandbox/requests", timeout=30).json())


def test_the_fleet_plans_and_applies(fleet: tuple[Path, SandboxProcess], tmp_path: Path) -> None:
    project, sandbox = fleet
    report = tmp_path / "report.json"
    planned = cli(project, sandbox, "plan", "--env", "*", "--detailed-exitcode",
                  "--report-file", str(report))  # fmt: skip
    assert planned.returncode == 2, planned.stderr
    out = planned.stdout
    starts = [out.index(f"=== Environment {name} ") for name in TENANTS]
    assert starts == sorted(starts)  # whole, in the project's order
    assert out.count("Plan: 6 to create") == 2 and out.count("Plan: 5 to create") == 1
    assert "Acme House, Reading" in out[starts[0] : starts[1]]  # acme's overlay
    assert 'users["msp-intern"]' not in out[starts[2] :]  # initech drops it
    assert 'companies["Globex Ltd"]' in out[starts[1] : starts[2]]
    assert "+44 113 496 0016" in out[starts[1] : starts[2]]  # globex's own var file
    summary = out[out.index("environment  create") :]
    assert [line.split()[0] for line in summary.splitlines()[2:5]] == list(TENANTS)
    rows = json.loads(report.read_text(encoding="utf-8"))["environments"]
    assert [(r["environment"], r["changes"]["create"], r["errors"]) for r in rows] == [
        ("acme", 6, 0),
        ("globex", 6, 0),
        ("initech", 5, 0),
    ]

    applied = cli(project, sandbox, "apply", "--env", "*", "--yes")
    assert applied.returncode == 0, applied.stderr
    assert "Applied 3 environment(s): acme, globex, initech." in applied.stderr

    again = cli(project, sandbox, "plan", "--env", "acme", "--detailed-exitcode")
    assert again.returncode == 0, again.stderr + again.stdout
    assert again.stdout.startswith("Environment: acme (helpdesk http://127.0.0.1:")
    # Each tenant holds only its own company: separate data behind each prefix.
    assert "companies    1 of 1 (100%)" in again.stdout


def test_one_unreachable_tenant_does_not_stop_the_others(
    fleet: tuple[Path, SandboxProcess], tmp_path: Path
) -> None:
    project, sandbox = fleet
    with socket.socket() as probe:  # a port nothing listens on
        probe.bind(("127.0.0.1", 0))
        closed = probe.getsockname()[1]
    path = project / "reconciler.yaml"
    text = path.read_text(encoding="utf-8")
    port = sandbox.env["ACME_HELPDESK_URL"].split(":")[2].split("/")[0]
    head, tail = text.split("  initech:")
    path.write_text(head + "  initech:" + tail.replace(f":{port}/", f":{closed}/"), "utf-8")
    report = tmp_path / "report.json"
    html, junit = tmp_path / "fleet.html", tmp_path / "junit.xml"
    result = cli(project, sandbox, "plan", "--env", "*", "--report-file", str(report),
                 "--html", str(html), "--junit", str(junit))  # fmt: skip
    assert result.returncode == 1
    assert result.stdout.count("Plan: 6 to create") == 2
    section = result.stdout[result.stdout.index("=== Environment initech") :]
    assert "Error:" in section and f"127.0.0.1:{closed}" in section
    assert "refused" in section
    rows = json.loads(report.read_text(encoding="utf-8"))["environments"]
    assert [r["status"] for r in rows] == ["changes", "changes", "error"]
    # One report over the fleet: a suite per environment, the unreachable one in error.
    suites = ET.parse(junit).getroot().findall("testsuite")
    assert [s.get("name") for s in suites] == [f"reconciler plan: {t}" for t in TENANTS]
    assert [int(s.get("errors") or 0) > 0 for s in suites] == [False, False, True]
    page = html.read_text(encoding="utf-8")
    assert all(name in page for name in TENANTS) and f"127.0.0.1:{closed}" in page


@pytest.mark.parametrize(
    ("command", "how"),
    [
        (command, how)
        for command in (["plan"], ["apply", "--yes"], ["export"], ["plan", "--env", "globex"])
        for how in ("HELPDESK_URL", "WORKSPACE_URL", "--helpdesk-url", "--workspace-url")
    ],
)
def test_the_wrong_tenant_guard(
    fleet: tuple[Path, SandboxProcess], command: list[str], how: str
) -> None:
    project, sandbox = fleet
    service = "HELPDESK" if "helpdesk" in how.lower() else "WORKSPACE"
    wrong = sandbox.env[f"INITECH_{service}_URL"]
    declared = sandbox.env[f"ACME_{service}_URL"]
    before = {tenant: requests_seen(sandbox, tenant) for tenant in TENANTS}
    flag = [how, wrong] if how.startswith("--") else []
    overrides = {} if flag else {how: wrong}
    result = cli(project, sandbox, *command, "--env", "acme", *flag, **overrides)
    assert result.returncode == 1
    assert f"{how} is {wrong}, but environment acme is bound to {declared}" in result.stderr
    assert {tenant: requests_seen(sandbox, tenant) for tenant in TENANTS} == before


def test_the_same_address_spelt_differently_passes_the_guard(
    fleet: tuple[Path, SandboxProcess],
) -> None:
    project, sandbox = fleet
    given = sandbox.env["ACME_HELPDESK_URL"].replace("http://", "HTTP://") + "/"
    result = cli(project, sandbox, "plan", "--env", "acme", HELPDESK_URL=given)
    assert result.returncode == 0, result.stderr


def test_a_saved_plan_is_refused_for_another_environment(
    fleet: tuple[Path, SandboxProcess], tmp_path: Path
) -> None:
    project, sandbox = fleet
    saved = tmp_path / "acme.plan.json"
    made = cli(project, sandbox, "plan", "--env", "acme", "--out", str(saved))
    assert made.returncode == 0, made.stderr
    assert json.loads(saved.read_text(encoding="utf-8"))["made_from"]["environment"] == "acme"
    before = requests_seen(sandbox, "globex")
    other = cli(project, sandbox, "apply", "--env", "globex", "--plan", str(saved), "--yes")
    assert other.returncode == 1
    assert "made for environment acme" in other.stderr and "--env globex" in other.stderr
    assert requests_seen(sandbox, "globex") == before
    applied = cli(project, sandbox, "apply", "--env", "acme", "--plan", str(saved), "--yes")
    assert applied.returncode == 0, applied.stderr


def test_a_targeted_fleet_apply_applies_only_the_target(
    fleet: tuple[Path, SandboxProcess],
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
