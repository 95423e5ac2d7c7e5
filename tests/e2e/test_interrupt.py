"""Ctrl-C during `apply`, as a user presses it: the CLI in a child process against the
sandbox process, SIGINT sent once the first company's last write has reached the
sandbox (so at least one change is done and most are not started).
Nothing new is started after it (the sandbox's request log), what was sent finishes,
the summary and the apply log's end record say so, the exit code is 130, and a later
apply converges. A Ctrl-C while planning ends in one line, without a traceback. During
`apply --env '*'` (a three-tenant sandbox), the first Ctrl-C stops the rollout gracefully:
the environments after it are not attempted, the summary says so, exit code 130, not the
"stopped at once" of a second Ctrl-C."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from reconciler.sandbox.process import SandboxProcess
from tests.e2e.conftest import Serve
from tests.e2e.test_apply_cli import CONNECTION, SEEDS, Sandbox, cli
from tests.e2e.test_fleet import fleet  # noqa: F401 (the fixture)

pytestmark = pytest.mark.e2e
COMPANIES = 30


def write_manifests(directory: Path) -> Path:
    directory.mkdir()
    lines = ["companies:"]
    for i in range(COMPANIES):
        lines += [f"  - name: Interrupted Co {i:02d}", f"    notes: company {i}"]
    (directory / "companies.yaml").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return directory


def start_apply(cwd: Path, sandbox: Sandbox, *args: str) -> subprocess.Popen[str]:
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("HELPDESK_", "WORKSPACE_"))}
    connection = {name: sandbox.process.env[name] for name in CONNECTION}
    return subprocess.Popen(
        [sys.executable, "-m", "reconciler", "apply", *args],
        cwd=cwd,
        env={**clean, **connection},
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def wait_for(condition: object, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():  # type: ignore[operator]
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.05)


@pytest.fixture
def sandbox(serve: Serve, tmp_path: Path) -> Sandbox:
    process = serve(tmp_path / "s.db", "--seed", str(SEEDS / "empty.yaml"), "--rate-limit", "0")
    return Sandbox(process)


def test_sigint_after_the_first_write_stops_cleanly_and_a_rerun_converges(
    sandbox: Sandbox, tmp_path: Path
) -> None:
    manifests = write_manifests(tmp_path / "manifests")
    log = tmp_path / "apply.jsonl"
    # The client sends at once what its budget's first minute allows (about 18 of these
    # 60 writes at 20 a minute) and then waits for the window: most of the run is still
    # to start when the signal comes, however slowly the machine answers. (At 60 a
    # minute the first burst holds nearly every write, and a loaded machine may signal
    # after the last one was sent, leaving nothing "not attempted".)
    apply = start_apply(tmp_path, sandbox, "manifests", "--yes", "--rate-limit", "20",
                        "--log", str(log))  # fmt: skip
    try:
        # Once a company's last operation (its notes) has reached the sandbox, that
        # change is done whenever the signal lands: an operation already sent finishes.
        wait_for(lambda: any(w.endswith("/UpdateCompany") for w in sandbox.writes()))
        apply.send_signal(signal.SIGINT)
        writes_at_signal = len(sandbox.writes())
        _, stderr = apply.communicate(timeout=60)
    finally:
        if apply.poll() is None:
            apply.kill()
            apply.wait()
    assert apply.returncode == 130, stderr
    assert "Traceback" not in stderr
    assert "Interrupted: starting nothing new" in stderr
    assert "Apply interrupted: nothing new was started" in stderr
    assert "not attempted (" in stderr and "done (" in stderr

    records = [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]
    end = records[-1]
    assert end["event"] == "end" and end["result"] == "interrupted"
    assert end["stopped_at_once"] is False
    assert 0 < end["done"] < COMPANIES and end["not_attempted"] > 0

    # No write started after the signal: only those in flight then could still arrive,
    # and every write the sandbox got is one the log records as sent.
    writes = sandbox.writes()
    assert len(writes) - writes_at_signal <= len(end["in_flight"])
    assert len(writes) == end["operations"]

    again = cli(tmp_path, sandbox.process, "apply", "manifests", "--yes")
    assert again.returncode == 0, again.stderr
    assert f"Apply complete: {COMPANIES - end['done']} change(s)" in again.stderr
    assert sandbox.mismatches(manifests) == []
    settled = cli(tmp_path, sandbox.process, "plan", "manifests", "--detailed-exitcode")
    assert settled.returncode == 0, settled.stdout


def test_sigint_while_planning_is_one_line_and_exit_130(sandbox: Sandbox, tmp_path: Path) -> None:
    write_manifests(tmp_path / "manifests")
    # One call a minute: after Authorization, the plan waits for the rate limiter.
    plan = subprocess.Popen(
        [sys.executable, "-m", "reconciler", "plan", "manifests", "--rate-limit", "1"],
        cwd=tmp_path,
        env={
            **{k: v for k, v in os.environ.items() if not k.startswith("HELPDESK_")},
            **{name: sandbox.process.env[name] for name in CONNECTION},
        },
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        wait_for(lambda: sandbox.requests())
        time.sleep(0.3)
        plan.send_signal(signal.SIGTERM)
        stdout, stderr = plan.communicate(timeout=30)
    finally:
        if plan.poll() is None:
            plan.kill()
            plan.wait()
    assert plan.returncode == 130
    assert stderr.strip() == "Interrupted." and stdout == ""


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
