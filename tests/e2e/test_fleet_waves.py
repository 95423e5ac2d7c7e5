"""Apply waves end to end (docs/environments.md, "Applying several environments"): the
example fleet with `wave: 1` for acme and globex and `wave: 2` for initech, against the
three-tenant sandbox. Globex fails in wave 1 (another apply holds its lock: refused before
anything is written); acme, in the same wave, is applied all the same; wave 2 is not
attempted, and the summary and the report file say so. Applied again once globex is free,
the two left apply and acme, already done, is not touched."""

from __future__ import annotations

import json
from pathlib import Path

import httpx
import pytest

from reconciler.applying.lock import ApplyLock
from reconciler.sandbox.process import SandboxProcess
from tests.e2e.test_fleet import TENANTS, cli, fleet  # noqa: F401 (a fixture)

pytestmark = pytest.mark.e2e
WAVES = {"acme": 1, "globex": 1, "initech": 2}


def writes(sandbox: SandboxProcess, tenant: str) -> int:
    """The writes a tenant's helpdesk has received."""
    base = sandbox.env[f"{tenant.upper()}_HELPDESK_URL"].rsplit("/helpdesk", 1)[0]
    seen = httpx.get(f"{base}/_sandbox/requests", timeout=30).json()
    # Signing in (POST .../Authorization) reads nothing and writes nothing.
    return sum(1 for r in seen if r["method"] != "GET" and not r["path"].endswith("/Authorization"))


def with_waves(project: Path) -> None:
    path = project / "reconciler.yaml"
    text = path.read_text(encoding="utf-8")
    for name, wave in WAVES.items():
        text = text.replace(f"  {name}:\n", f"  {name}:\n    wave: {wave}\n")
    path.write_text(text, encoding="utf-8")


def test_a_failure_in_wave_one_stops_before_wave_two(
    fleet: tuple[Path, SandboxProcess],  # noqa: F811
    tmp_path: Path,
) -> None:
    project, sandbox = fleet
    with_waves(project)
    listed = cli(project, sandbox, "environments", "--format", "json")
    assert [row["wave"] for row in json.loads(listed.stdout)] == [1, 1, 2]
    locks, report = tmp_path / "locks", tmp_path / "report.json"
    locks.mkdir()
    env = {"RECONCILER_LOCK_DIR": str(locks)}
    with ApplyLock([sandbox.env["GLOBEX_HELPDESK_URL"]], directory=locks):  # another apply
        result = cli(project, sandbox, "apply", "--env", "*", "--yes",
                     "--report-file", str(report), **env)  # fmt: skip
    assert result.returncode == 1, result.stderr
    said = result.stderr
    assert "=== Applied environment acme (wave 1): applied" in said
    assert "=== Applied environment globex (wave 1): failed" in said
    assert "Error: globex: " in said and "Applied environment initech" not in said
    assert "Stopped after wave 1 (globex failed); not attempted: initech." in said
    table = said[said.index("environment  wave  result") :].splitlines()
    assert [line.split()[:3] for line in table[2:5]] == [
        ["acme", "1", "applied"], ["globex", "1", "failed"], ["initech", "2", "not"]
    ]  # fmt: skip
    assert writes(sandbox, "acme") > 0
    assert writes(sandbox, "globex") == 0 and writes(sandbox, "initech") == 0
    rows = {
        r["environment"]: r["apply"] for r in json.loads(report.read_text("utf-8"))["environments"]
    }
    assert {name: (r["wave"], r["result"]) for name, r in rows.items()} == {
        "acme": (1, "applied"), "globex": (1, "failed"), "initech": (2, "not attempted")
    }  # fmt: skip
    assert rows["globex"]["error"].startswith("another apply is running for ")
    assert rows["acme"]["error"] is None and rows["initech"]["seconds"] == 0

    again = cli(project, sandbox, "apply", "--env", "*", "--yes", **env)
    assert again.returncode == 0, again.stderr
    assert "Applied 2 environment(s): globex, initech." in again.stderr
    settled = cli(project, sandbox, "plan", "--env", "*", "--detailed-exitcode")
    assert settled.returncode == 0, settled.stdout + settled.stderr


def test_waves_all_or_none_is_checked_before_anything_runs(
    fleet: tuple[Path, SandboxProcess],  # noqa: F811
) -> None:
    project, sandbox = fleet
    path = project / "reconciler.yaml"
    path.write_text(path.read_text("utf-8").replace("  acme:\n", "  acme:\n    wave: 1\n"), "utf-8")
    result = cli(project, sandbox, "apply", "--env", "*", "--yes")
    assert result.returncode == 1
    assert (
        "reconciler.yaml:17:3: environments.globex: no wave, but other environments have one"
        in result.stderr
    )
    assert "environments.initech: no wave" in result.stderr
    assert all(writes(sandbox, tenant) == 0 for tenant in TENANTS)
