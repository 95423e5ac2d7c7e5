"""Ctrl-C during `apply --env '*'`, as a user presses it (the CLI in a child process
against a three-tenant sandbox process): the first Ctrl-C stops the rollout gracefully
(what was sent finishes, nothing new starts: the environments after it are not attempted),
the summary says so, and the exit code is 130; it is not the "stopped at once" of a
second Ctrl-C."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from reconciler.sandbox.process import SandboxProcess
from tests.e2e.test_fleet import fleet  # noqa: F401 (the fixture)

pytestmark = pytest.mark.e2e
COMPANIES = 30


def writes(sandbox: SandboxProcess, tenant: str) -> list[str]:
    base = sandbox.env[f"{tenant.upper()}_HELPDESK_URL"].rsplit("/helpdesk", 1)[0]
    seen = httpx.get(f"{base}/_sandbox/requests", timeout=30, trust_env=False).json()
    return [
        r["path"] for r in seen if r["method"] != "GET" and not r["path"].endswith("/Authorization")
    ]


def test_the_first_ctrl_c_stops_a_fleet_apply_gracefully(
    fleet: tuple[Path, SandboxProcess],  # noqa: F811
) -> None:
    project, sandbox = fleet
    lines = ["companies:"]
    for i in range(COMPANIES):
        lines += [f"  - name: Interrupted Co {i:02d}", f"    notes: company {i}"]
    (project / "tenants" / "acme" / "many.yaml").write_text("\n".join(lines) + "\n", "utf-8")
    # At 40 calls a minute, acme's writes wait for the budget after the first few: most of
    # them are still to start when the signal comes, however slowly the machine answers.
    text = (project / "reconciler.yaml").read_text(encoding="utf-8")
    (project / "reconciler.yaml").write_text(text.replace("rate_limit: 90", "rate_limit: 40"))
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("HELPDESK_", "WORKSPACE_"))}
    apply = subprocess.Popen(
        [sys.executable, "-m", "reconciler", "apply", "--env", "*", "--yes"],
        cwd=project,
        env={**clean, **sandbox.env},
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.monotonic() + 120
        while not any(p.endswith("/UpdateCompany") for p in writes(sandbox, "acme")):
            assert apply.poll() is None, apply.communicate()
            assert time.monotonic() < deadline, "no write reached the sandbox"
            time.sleep(0.05)
        apply.send_signal(signal.SIGINT)
        _, stderr = apply.communicate(timeout=120)
    finally:
        if apply.poll() is None:
            apply.kill()
            apply.wait()
    assert apply.returncode == 130, stderr
    assert "Traceback" not in stderr and "Stopped at once" not in stderr
    assert "Interrupted: starting nothing new" in stderr
    assert "Interrupted while applying acme; not attempted: globex, initech." in stderr
    assert writes(sandbox, "globex") == writes(sandbox, "initech") == []
