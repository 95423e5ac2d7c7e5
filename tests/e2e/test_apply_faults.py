"""`reconciler apply` under the faults of a real network (issue 4, "Faults"): the sandbox
runs as its own process, seeded with the Acme catalogue only (administrator, custom field
definitions, sections, rules), and answers with injected `500`s, dropped connections
after writes, slow answers and a stretch of `429`s. `apply examples/acme --yes`
is run as a user runs it, repeatedly, until it exits 0.

What is checked, with the faults switched off again: the plan is empty, no object exists
twice (read through the API, not through reconciler's own parsing), and the sandbox's
request log shows every non-idempotent create applied exactly once (a create whose
answer was lost is found again by re-reading, never sent blindly a second time).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import httpx
import pytest

from reconciler.sandbox.process import SandboxProcess
from tests.e2e.conftest import Serve

pytestmark = pytest.mark.e2e

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "acme"
CATALOGUE = ROOT / "reconciler" / "sandbox" / "seeds" / "acme-catalogue.yaml"

# The mix: 5 % `500`, 2 % dropped answers after a write, 5 % slow answers. The
# seed fixes the sequence of decisions (the k-th request gets the k-th draw), so the runs
# see the same faults up to the order in which concurrent requests arrive.
MIXED_FAULTS: dict[str, float | int] = {
    "error_rate": 0.05,
    "drop_rate": 0.02,
    "slow_rate": 0.05,
    "slow_seconds": 1.0,
    "seed": 11,
}
# Long enough that every request in flight meets it and the client must wait out a
# Retry-After of several seconds; what is checked is that it waits rather than
# retrying, not how long (a longer stretch only adds idle time).
THROTTLE_FOR = 6.0
# The 429 stretch starts once this many writes have arrived, so that it falls in the
# middle of the first apply's writes whatever the machine's speed.
WRITES_BEFORE_THROTTLE = 40

# What examples/acme creates from the catalogue, and how the sandbox lists each kind.
EXPECTED_COUNTS = {"companies": 4, "users": 13, "categories": 6, "assets": 25, "employees": 6}
# Non-idempotent creates (DESIGN §5: re-read before repeating): path -> the parameter
# that names the object. The workspace logs JSON bodies as "<json>": counted, not keyed.
KEYED_CREATES = {
    "/helpdesk/api/CreateUser": "username",
    "/helpdesk/api/Asset": "serialNumber",
    "/helpdesk/api/AddCategory": "name",
}
EMPLOYEE_CREATE = "/workspace/api/employees"
APPLIED = (200, 201, "dropped")  # the write reached the store (a "dropped" one too)


def reconciler(
    cwd: Path, env: dict[str, str], *args: str, timeout: float = 110
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        command(*args),
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
        stdin=subprocess.DEVNULL,
    )


def command(*args: str) -> list[str]:
    return [sys.executable, "-m", "reconciler", *args]


def cli_env(sandbox: SandboxProcess) -> dict[str, str]:
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("HELPDESK_", "WORKSPACE_"))}
    return {**clean, **sandbox.env}


def apply_args(log: Path, manifests: Path = EXAMPLE) -> tuple[str, ...]:
    # The sandbox runs without a rate limit, so the client does not pace itself either.
    return (
        "apply",
        str(manifests),
        "--yes",
        "--rate-limit",
        "0",
        "--search-rate-limit",
        "0",
        "--log",
        str(log),
    )


def set_faults(sandbox: SandboxProcess, faults: dict[str, Any]) -> None:
    httpx.put(f"{sandbox.url}/_sandbox/faults", json=faults, timeout=10).raise_for_status()


def request_log(sandbox: SandboxProcess) -> list[dict[str, Any]]:
    response = httpx.get(f"{sandbox.url}/_sandbox/requests", timeout=30)
    response.raise_for_status()
    entries: list[dict[str, Any]] = response.json()
    return entries


def is_write(entry: dict[str, Any]) -> bool:
    return entry["method"] != "GET" and not entry["path"].endswith("/api/Authorization")


def start_sandbox(serve: Serve, tmp_path: Path) -> SandboxProcess:
    assert CATALOGUE.is_file(), f"the catalogue seed is missing: {CATALOGUE}"
    return serve(
        tmp_path / "sandbox.db",
        "--seed",
        str(CATALOGUE),
        "--rate-limit",
        "0",
        "--search-rate-limit",
        "0",
    )


def run_until_converged(
    workdir: Path,
    env: dict[str, str],
    first: subprocess.CompletedProcess[str],
    most: int,
    manifests: Path = EXAMPLE,
) -> list[subprocess.CompletedProcess[str]]:
    """`first` was run already; run apply again while it fails, `most` runs in all."""
    runs = [first]
    while runs[-1].returncode != 0 and len(runs) < most:
        log = workdir / f"apply-{len(runs)}.jsonl"
        runs.append(reconciler(workdir, env, *apply_args(log, manifests)))
    for result in runs:
        assert result.returncode in (0, 1), result.stderr
        assert "Traceback" not in result.stderr, result.stderr
    return runs


def describe(runs: Iterable[subprocess.CompletedProcess[str]]) -> str:
    return "\n---\n".join(r.stderr[-2500:] for r in runs)


def test_apply_converges_under_mixed_faults(serve: Serve, tmp_path: Path) -> None:
    started = time.monotonic()
    sandbox = start_sandbox(serve, tmp_path)
    env = cli_env(sandbox)
    set_faults(sandbox, MIXED_FAULTS)

    # Run 1 in the background; once it is writing, switch the 429 stretch on.
    first_log = tmp_path / "apply-0.jsonl"
    proc = subprocess.Popen(
        command(*apply_args(first_log)),
        cwd=tmp_path,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        stdin=subprocess.DEVNULL,
        text=True,
    )
    try:
        while proc.poll() is None:
            if sum(map(is_write, request_log(sandbox))) >= WRITES_BEFORE_THROTTLE:
                set_faults(sandbox, {**MIXED_FAULTS, "throttle_for": THROTTLE_FOR})
                throttled_at = time.monotonic()
                break
            time.sleep(0.05)
        else:
            pytest.fail(f"apply ended before {WRITES_BEFORE_THROTTLE} writes:\n{proc.stderr}")
        out, err = proc.communicate(timeout=110)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    first = subprocess.CompletedProcess(proc.args, proc.returncode, out, err)
    first_run = request_log(sandbox)
    runs = run_until_converged(tmp_path, env, first, most=3)
    assert runs[-1].returncode == 0, describe(runs)

    log = request_log(sandbox)
    statuses = Counter(e["status"] for e in log)
    # The faults did happen: otherwise this test would prove nothing.
    assert statuses[429] >= 1 and statuses[500] >= 1 and statuses["dropped"] >= 1, statuses
    # The 429s were waited out, not retried in a tight loop: the client is paused by
    # Retry-After, and every request during the stretch is answered 429, so a handful
    # (the requests in flight when it began) is all there may be.
    assert statuses[429] <= 20, statuses
    # and writing went on after the stretch, in the same first run.
    assert time.monotonic() - throttled_at >= THROTTLE_FOR
    last_429 = max(e["seq"] for e in first_run if e["status"] == 429)
    assert any(e["seq"] > last_429 and is_write(e) for e in first_run)

    set_faults(sandbox, {})
    check_converged(tmp_path, env, sandbox, log)
    # The stretch is waited out once; the whole run stays well inside the budget.
    assert time.monotonic() - started < 100


def test_lost_create_answers_never_create_twice(serve: Serve, tmp_path: Path) -> None:
    sandbox = start_sandbox(serve, tmp_path)
    env = cli_env(sandbox)
    manifests = EXAMPLE
    # Half the writes lose their answer after the write happened: every lost create must
    # be found again by re-reading (the locate path), not sent a second time. Idempotent
    # writes are retried instead, and give up after five lost answers in a row: a run
    # may stop there, and the next one carries on.
    set_faults(sandbox, {"drop_rate": 0.5, "seed": 5})
    first = reconciler(tmp_path, env, *apply_args(tmp_path / "apply-0.jsonl", manifests))
    runs = run_until_converged(tmp_path, env, first, most=6, manifests=manifests)
    assert runs[-1].returncode == 0, describe(runs)

    log = request_log(sandbox)
    creates = (*KEYED_CREATES, EMPLOYEE_CREATE)
    dropped_creates = [e for e in log if e["path"] in creates and e["status"] == "dropped"]
    assert len(dropped_creates) >= 5, "too few lost creates to exercise the locate path"
    # Each of them is in apply's own record as found again by re-reading.
    recovered = [
        entry
        for path in sorted(tmp_path.glob("apply-*.jsonl"))
        for entry in map(json.loads, path.read_text().splitlines())
        if entry.get("outcome") == "recovered"
    ]
    assert len(recovered) == len(dropped_creates)

    set_faults(sandbox, {})
    check_converged(tmp_path, env, sandbox, log)


def test_rerun_after_an_interrupted_bootstrap_converges(serve: Serve, tmp_path: Path) -> None:
    sandbox = start_sandbox(serve, tmp_path)
    env = cli_env(sandbox)
    # Slow answers (50 ms) so that the outage below starts at a well-defined point.
    slow = {"slow_rate": 1.0, "slow_seconds": 0.05}
    set_faults(sandbox, slow)
    proc = subprocess.Popen(
        command(*apply_args(tmp_path / "apply-0.jsonl")),
        cwd=tmp_path,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        stdin=subprocess.DEVNULL,
        text=True,
    )
    try:
        # An outage (every request answered 500) once ten users have been created.
        while proc.poll() is None:
            log = request_log(sandbox)
            users = [e for e in log if e["path"].endswith("/CreateUser") and e["status"] == 200]
            if len(users) >= 10:
                set_faults(sandbox, {**slow, "error_rate": 1.0})
                break
            time.sleep(0.02)
        _, err = proc.communicate(timeout=110)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert proc.returncode == 1 and "Apply stopped at the first failure." in err, err

    # The outage is over; the user runs apply again, as the failure message says.
    set_faults(sandbox, {})
    # It must not be refused by the safety brake: the executor finishes the changes it
    # started, and the brake does not count updates that only fill empty values.
    again = reconciler(tmp_path, env, *apply_args(tmp_path / "apply-1.jsonl"))
    assert again.returncode == 0, again.stderr
    check_converged(tmp_path, env, sandbox, request_log(sandbox))


def check_converged(
    workdir: Path, env: dict[str, str], sandbox: SandboxProcess, log: list[dict[str, Any]]
) -> None:
    """Faults off: nothing left to do, nothing twice in the live state or in the log."""
    plan = reconciler(workdir, env, "plan", str(EXAMPLE), "--detailed-exitcode", timeout=60)
    assert plan.returncode == 0, plan.stdout[-3000:] + plan.stderr
    assert "No changes" in plan.stdout

    live = read_live(sandbox)
    assert {kind: len(items) for kind, items in live.items()} == EXPECTED_COUNTS
    keys = {
        "companies by name": [c["Name"] for c in live["companies"]],
        "users by username": [u["Username"] for u in live["users"]],
        "users by e-mail": [u["Email"] for u in live["users"]],
        "categories by name": [c["Name"] for c in live["categories"]],
        "assets by serial number": [a["SerialNumber"] for a in live["assets"]],
        "employees by e-mail": [e["email"] for e in live["employees"]],
    }
    for what, values in keys.items():
        assert not duplicates(values), f"{what}: {duplicates(values)}"

    # Every non-idempotent create reached the store exactly once; none was refused as a
    # duplicate (the sandbox refuses second users, categories and employees with 400/409).
    applied = Counter(
        (e["path"], param(e, name))
        for e in log
        for path, name in KEYED_CREATES.items()
        if e["path"] == path and e["status"] in APPLIED
    )
    assert applied and max(applied.values()) == 1, [k for k, n in applied.items() if n > 1]
    employees = [e for e in log if e["path"] == EMPLOYEE_CREATE and e["method"] == "POST"]
    assert sum(e["status"] in APPLIED for e in employees) == EXPECTED_COUNTS["employees"]
    refused = [e for e in log if e["path"] in (*KEYED_CREATES, EMPLOYEE_CREATE)]
    assert not [e for e in refused if e["status"] in (400, 409)], "a create was repeated"


def param(entry: dict[str, Any], name: str) -> str:
    """A logged form parameter, by name in any case (the log keeps the sender's case)."""
    params = {k.casefold(): v for k, v in (entry["params"] or {}).items()}
    return str(params[name.casefold()]).casefold()


def read_live(sandbox: SandboxProcess) -> dict[str, list[dict[str, Any]]]:
    """Every object of the five kinds, through plain HTTP (faults must be off)."""
    with httpx.Client(
        base_url=sandbox.helpdesk_url + "/api", auth=sandbox.auth, timeout=30
    ) as helpdesk:
        users = pages(helpdesk, "/Users", {"listMode": "all", "count": 500}, size=500)
        assets = pages(helpdesk, "/Assets", {"includeDisabled": "true"}, size=50)
        companies = helpdesk.get("/Companies").raise_for_status().json()
        categories = helpdesk.get("/categories").raise_for_status().json()
    employees = (
        httpx.get(
            sandbox.workspace_url + "/api/employees",
            headers={"X-API-Key": sandbox.env["WORKSPACE_API_KEY"]},
            timeout=30,
        )
        .raise_for_status()
        .json()
    )
    return {
        "companies": companies,
        "users": users,
        "categories": categories,
        "assets": assets,
        "employees": employees,
    }


def pages(
    client: httpx.Client, path: str, params: dict[str, Any], size: int
) -> list[dict[str, Any]]:
    items: list[dict[str, Any]] = []
    page = 1
    while True:
        batch = client.get(path, params={**params, "page": page}).raise_for_status().json()
        items.extend(batch)
        if len(batch) < size:
            return items
        page += 1


def duplicates(values: Iterable[str | None]) -> list[str]:
    counts = Counter(str(v).casefold() for v in values if v is not None)
    return sorted(v for v, n in counts.items() if n > 1)
