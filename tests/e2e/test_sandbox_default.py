"""`reconciler sandbox serve` and `--sandbox` start from the same tenant (issue 12, item
9): the example plans the same against either, without an error."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from reconciler.sandbox.process import SandboxProcess
from tests.e2e.test_plan_cli import run

pytestmark = pytest.mark.e2e
EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "acme"


def _plan(cwd: Path, *args: str, env: dict[str, str] | None = None) -> dict[str, object]:
    result = run(cwd, "plan", str(EXAMPLE), "--format", "json", *args, env=env)
    assert result.returncode == 0, result.stderr
    data: dict[str, object] = json.loads(result.stdout)
    return data


def test_serve_and_embedded_sandbox_plan_the_example_alike(tmp_path: Path) -> None:
    with SandboxProcess(tmp_path / "served.db", "--rate-limit", "0", empty=False) as sandbox:
        served = _plan(tmp_path, "--rate-limit", "0", env=sandbox.env)
    embedded = _plan(tmp_path, "--sandbox")
    assert served["errors"] == [] and served["summary"] == embedded["summary"]
    assert served["summary"] == {"create": 8, "update": 10, "delete": 0, "enable": 0, "disable": 2}


def test_empty_starts_without_a_tenant(tmp_path: Path) -> None:
    with SandboxProcess(tmp_path / "empty.db", "--rate-limit", "0") as sandbox:
        import httpx

        users = httpx.get(f"{sandbox.helpdesk_url}/api/Users", auth=sandbox.auth).json()
        assert [u["Username"] for u in users] == ["admin"]


def test_empty_and_seed_together_are_refused(tmp_path: Path) -> None:
    args = ["sandbox", "serve", "--port", "0", "--db", str(tmp_path / "x.db")]
    result = subprocess.run(
        [sys.executable, "-m", "reconciler", *args, "--empty", "--seed", "acme"],
        capture_output=True,
        text=True,
        timeout=30,
        stdin=subprocess.DEVNULL,
    )
    assert result.returncode == 1
    assert "--empty and --seed" in result.stderr and "Traceback" not in result.stderr
    assert not (tmp_path / "x.db").exists()
