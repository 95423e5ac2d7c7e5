"""`apply` bootstrapping a generated tenant: writes against operations planned, the share of
the rate limit it uses, and the speed-up of concurrency (issue 4, "Done when").

The tenant (100 companies with domains and notes, 500 users in 5 departments, 500 assets
each assigned to one user: 1,100 objects, about 1,700 operations) is generated as
manifests in a temporary directory and bootstrapped from the `empty` seed. Each
measurement gets a fresh sandbox as its own process (`reconciler sandbox serve`) and runs
the real workflow (`ApplySession`: authenticate, read, plan, execute) in this process;
every figure is taken from the sandbox's request log, not from the client's own counts.

1. Rate-limited: the sandbox and the client both at `--rate-limit` (default 900 a minute,
   the real 90 scaled by ten to keep this short; search 600).
   (a) writes the sandbox received against `plan.operation_count`: must be equal;
   (b) the pace at which the budget is used, and the 429s received (target 0).
2. Latency: no rate limit, every answer 20 ms late (`--faults slow=1.0,slow_seconds=0.02`),
   the same bootstrap with `apply`'s default `--parallelism` (10 operations in flight) and
   then with `--parallelism 1`: the speed-up of the execution (issue 13: at least 8x).
   Each run also prints the CPU time per operation of this process (the reconciler) and
   of the sandbox process during the execution: with 10 operations in flight and 20 ms
   per answer, a run can be at most 10x faster, and only while one operation costs the
   reconciler under 2 ms of CPU and the two processes find a free core each.
3. Without network: the plan of 2. executed as `apply` executes it (the executor, a
   `HelpdeskClient` with as many requests in flight, the apply log) but over httpx's
   `MockTransport`, whose handler answers every request after the same latency (an
   `asyncio.sleep`): no socket, no sandbox. The speed-up of the reconciler itself, at the
   default parallelism against 1, and its CPU per operation without the network stack.

    python benchmarks/apply_bench.py [--users 500 --assets 500 --companies 100]
                                     [--rate-limit 900] [--latency 0.02] [--parts 1,2,3]

Runtime about three minutes: a minute and a bit for (b), whose limiter must wait out one
whole window, then ~10 s concurrent and ~45 s sequential for the latency runs, and as much
again for 3.

How (b) is measured. The sandbox, like the real helpdesk, allows `L` calls in any sliding
window of `W` = 60 s. A client that uses its whole budget makes `L` calls, then its next
call as soon as the first leaves the window, so after `k*L` calls (k whole windows' worth)
the (k*L+1)-th call starts `k*W` after the first. The share of the limit achieved is
therefore `k*W / (start of call k*L+1 - start of call 1)`: 100 % is the most the limit
allows; the client's 2 % margin (ratelimit.py) costs 2 %. Calls per minute over the whole
run are printed too, but overstate the pace: the first window's burst is free.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import json
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

import httpx
import processes

from reconciler.applying.executor import PARALLEL_CHANGES, ApplyReport, Executor
from reconciler.applying.log import ApplyLog
from reconciler.applying.session import ApplyOptions, ApplySession, SilentProgress
from reconciler.clients import BasicAuth, HelpdeskClient, RateLimits, Secret
from reconciler.clients.connection import Connection, HelpdeskConnection, RateSettings
from reconciler.errors import PlanHasErrors
from reconciler.manifest.desired import DesiredState
from reconciler.manifest.loader import load_manifests
from reconciler.plans import Plan
from reconciler.sandbox.config import seed_path
from reconciler.sandbox.process import SandboxProcess

DEPARTMENTS = ("Finance", "Sales", "Operations", "IT", "Legal")
WINDOW = 60.0  # the sandbox's rate-limit window, as the real helpdesk's
SEARCH_ENDPOINTS = ("/search", "/userbyemail")  # the other bucket
WRITE_METHODS = frozenset({"POST", "PUT", "PATCH", "DELETE"})
WRITE_GETS = ("/enablerule/", "/disablerule/")  # the API's writes through GET


# -- the tenant ----------------------------------------------------------------------------


def add_tenant_arguments(parser: argparse.ArgumentParser) -> None:
    """The size of the generated tenant (`--companies`, `--users`, `--assets`) as the
    client and sandbox CPU benchmarks take it: 1,100 objects, 1,700 writes from empty."""
    parser.add_argument("--companies", type=int, default=100)
    parser.add_argument("--users", type=int, default=500)
    parser.add_argument("--assets", type=int, default=500)


def write_tenant(directory: Path, companies: int, users: int, assets: int) -> None:
    """Manifests of a generated tenant (JSON is YAML). Nothing in it needs a custom field
    definition, so the `empty` seed (an administrator and a key) is the catalogue."""
    company_names = [f"Company {i:03d}" for i in range(companies)]
    manifests: dict[str, dict[str, Any]] = {
        "settings.yaml": {"settings": {"prune": []}},
        "companies.yaml": {
            "companies": [
                {"name": name, "email_domains": [f"c{i:03d}.example.com"], "notes": f"Tenant {i}"}
                for i, name in enumerate(company_names)
            ]
        },
        "people.yaml": {
            "departments": [{"name": name} for name in DEPARTMENTS],
            "users": [
                {
                    "username": f"user{i:04d}",
                    "email": f"user{i:04d}@c{i % companies:03d}.example.com",
                    "first_name": f"First{i}",
                    "last_name": f"Last{i}",
                    "location": "Office",
                    "company": company_names[i % companies],
                    "department": DEPARTMENTS[i % len(DEPARTMENTS)],
                }
                for i in range(users)
            ],
        },
        "assets.yaml": {
            "assets": [
                {
                    "serial_number": f"SN-{i:05d}",
                    "model_name": "ThinkPad T14",
                    "manufacturer": "Lenovo",
                    "type": "Laptop",
                    "supplier": "CDW",
                    "location": "Office",
                    "company": company_names[i % companies],
                    "assigned_users": [f"user{i % users:04d}"],
                }
                for i in range(assets)
            ]
        },
    }
    for name, content in manifests.items():
        (directory / name).write_text(json.dumps(content, indent=1), encoding="utf-8")


# -- one bootstrap -------------------------------------------------------------------------


@dataclass(frozen=True)
class Bootstrap:
    plan: Plan
    execute_seconds: float
    client_calls: int
    log: list[dict[str, Any]]
    client_cpu: float  # CPU seconds of this process during the execution
    sandbox_cpu: float | None  # of the sandbox process (None where /proc is missing)

    @property
    def objects(self) -> int:
        return len(self.plan.changes)

    def writes(self) -> int:
        return sum(is_write(entry) for entry in self.log)

    def statuses(self, status: int) -> int:
        return sum(entry["status"] == status for entry in self.log)


def is_write(entry: dict[str, Any]) -> bool:
    path = entry["path"].lower()
    if entry["method"] == "GET":
        return any(marker in path for marker in WRITE_GETS)
    return entry["method"] in WRITE_METHODS and not path.endswith("/api/authorization")


def bootstrap(
    desired: DesiredState,
    db: Path,
    *,
    rate_limit: int,
    search_rate_limit: int,
    faults: str = "",
    parallelism: int = PARALLEL_CHANGES,
) -> Bootstrap:
    """A fresh sandbox process seeded empty; plan and execute the tenant; its request log."""
    args = ["--seed", str(seed_path("empty")), "--rate-limit", str(rate_limit)]
    args += ["--search-rate-limit", str(search_rate_limit)]
    if faults:
        args += ["--faults", faults]
    with SandboxProcess(db, *args) as sandbox:
        user, password = sandbox.auth
        connection = Connection(
            HelpdeskConnection(sandbox.helpdesk_url, username=user, password=Secret(password)),
            None,
            RateSettings(rate_limit, search_rate_limit),
        )
        assert sandbox.proc is not None
        clock = _Clock(lambda: process_cpu(sandbox.proc.pid if sandbox.proc else 0))
        plan, calls = asyncio.run(_apply(desired, connection, parallelism, clock))
        with httpx.Client(timeout=60) as http:
            log = http.get(f"{sandbox.url}/_sandbox/requests").raise_for_status().json()
    return Bootstrap(plan, clock.seconds, calls, log, clock.cpu, clock.other_cpu)


def process_cpu(pid: int) -> float | None:
    """CPU seconds (user and system) process `pid` used so far; None without /proc."""
    try:
        return processes.process_cpu(pid)
    except OSError:
        return None


async def _apply(
    desired: DesiredState, connection: Connection, parallelism: int, clock: _Clock
) -> tuple[Plan, int]:
    with tempfile.TemporaryDirectory() as logs:
        async with ApplySession(
            desired,
            connection,
            options=ApplyOptions(force=True),
            log_path=Path(logs) / "apply.jsonl",
            parallelism=parallelism,
        ) as session:
            try:
                outcome = await session.apply(confirm=lambda plan: True, progress=clock)
            except PlanHasErrors as exc:
                raise SystemExit(f"the generated tenant's plan has errors: {exc}") from None
            if outcome.report is None or not outcome.report.ok:
                raise SystemExit(f"apply failed: {outcome.report}")
            return outcome.plan, session.clients.calls


class _Clock(SilentProgress):
    """Times the execution alone (from the first write to the last answer), in wall time,
    in this process's CPU time and in another process's (`other_cpu`: the sandbox)."""

    def __init__(self, other_cpu: Callable[[], float | None]) -> None:
        self._other = other_cpu
        self.began = self.began_cpu = 0.0
        self.began_other: float | None = None
        self.seconds = self.cpu = 0.0
        self.other_cpu: float | None = None

    def started(self, plan: Plan) -> None:
        self.began_other = self._other()
        self.began_cpu = time.process_time()
        self.began = time.perf_counter()

    def finished(self, report: ApplyReport) -> None:
        self.seconds = time.perf_counter() - self.began
        self.cpu = time.process_time() - self.began_cpu
        ended = self._other()
        if ended is not None and self.began_other is not None:
            self.other_cpu = ended - self.began_other


# -- the reconciler without the network ---------------------------------------------------


class LateAnswers:
    """An `httpx.MockTransport` handler: every request answered after `latency` seconds,
    `Authorization` with a user object and every other call with a new id (a bare integer,
    as `CreateUser` answers on some versions). No socket, no server: what remains is the
    reconciler's own work (executor, clients, retry and rate-limit bookkeeping, the apply
    log) and httpx's client layer."""

    def __init__(self, latency: float) -> None:
        self.latency = latency
        self.calls = 0
        self._ids = itertools.count(1000)

    async def __call__(self, request: httpx.Request) -> httpx.Response:
        self.calls += 1
        await asyncio.sleep(self.latency)
        if request.url.path.endswith("/Authorization"):
            return httpx.Response(200, json={"UserID": 1, "Username": "admin"})
        return httpx.Response(200, json=next(self._ids))


def execute_without_network(plan: Plan, latency: float, parallelism: int) -> tuple[float, float]:
    """(wall seconds, CPU seconds) of executing `plan` as `ApplySession` does (a
    `HelpdeskClient` with `parallelism` requests in flight, no rate limit, the apply log
    written), every answer coming from `LateAnswers`."""

    async def run() -> tuple[float, float]:
        answers = LateAnswers(latency)
        with tempfile.TemporaryDirectory() as logs:
            async with HelpdeskClient(
                "http://helpdesk.invalid",
                BasicAuth("admin", "secret"),
                limits=RateLimits(general=0, search=0),
                transport=httpx.MockTransport(answers),
                max_concurrency=parallelism,
            ) as helpdesk:
                await helpdesk.authenticate()
                with ApplyLog(Path(logs) / "apply.jsonl") as log:
                    executor = Executor(
                        plan, helpdesk=helpdesk, log=log, parallel_changes=parallelism
                    )
                    began, began_cpu = time.perf_counter(), time.process_time()
                    report = await executor.run()
                    seconds = time.perf_counter() - began
                    cpu = time.process_time() - began_cpu
        if not report.ok or answers.calls != plan.operation_count + 1:
            raise SystemExit(f"the execution without network failed: {report}")
        return seconds, cpu

    return asyncio.run(run())


# -- the figures ---------------------------------------------------------------------------


def budget_share(log: list[dict[str, Any]], limit: int) -> tuple[float | None, int, float]:
    """(share of the limit achieved over whole windows, or None when fewer than `limit`
    calls were made; calls in the general bucket; seconds from first to last call)."""
    starts = sorted(
        _seconds(entry["time"]) - entry["ms"] / 1000.0  # the log times the answer
        for entry in log
        if entry["service"] == "helpdesk"
        and not entry["path"].lower().endswith(SEARCH_ENDPOINTS)
        and entry["status"] != 429
    )
    span = starts[-1] - starts[0]
    windows = (len(starts) - 1) // limit
    if not windows:
        return None, len(starts), span
    return windows * WINDOW / (starts[windows * limit] - starts[0]), len(starts), span


def _seconds(stamp: str) -> float:
    return datetime.fromisoformat(stamp).timestamp()


def print_writes(label: str, run: Bootstrap) -> bool:
    planned = run.plan.operation_count
    equal = run.writes() == planned
    print(
        f"  {label}: {run.writes()} writes received, {planned} operations planned "
        f"({run.objects} changes) -> {'equal' if equal else 'NOT EQUAL'}"
    )
    return equal


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--companies", type=int, default=100)
    parser.add_argument("--users", type=int, default=500)
    parser.add_argument("--assets", type=int, default=500)
    parser.add_argument("--rate-limit", type=int, default=900, help="calls a minute")
    parser.add_argument("--latency", type=float, default=0.02, help="seconds per answer")
    parser.add_argument("--parts", default="1,2,3", help="which parts to run (3 needs 2), e.g. 2,3")
    args = parser.parse_args()
    parts = set(args.parts.split(","))
    started = time.perf_counter()
    ok = True
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        (root / "tenant").mkdir()
        write_tenant(root / "tenant", args.companies, args.users, args.assets)
        desired = load_manifests([root / "tenant"], env={})
        objects = args.companies + args.users + args.assets
        print(f"apply: bootstrapping a generated tenant of {objects} objects from empty")
        if "1" in parts:
            ok &= rate_limited(desired, root, args.rate_limit)
        if "2" in parts:
            plan, latency_ok = with_latency(desired, root, args.latency)
            ok &= latency_ok
            if "3" in parts:
                without_network(plan, args.latency)
    print(f"\nruntime {time.perf_counter() - started:.0f} s")
    if not ok:
        raise SystemExit("writes and planned operations differ")


def rate_limited(desired: DesiredState, root: Path, limit: int) -> bool:
    """Part 1; whether the writes equal the operations planned."""
    search = limit * 2 // 3
    print(f"\n1. rate limit {limit} a minute ({search} for searches), sandbox and client")
    run = bootstrap(desired, root / "limited.db", rate_limit=limit, search_rate_limit=search)
    ok = print_writes("(a)", run)
    share, calls, span = budget_share(run.log, limit)
    pace = calls / span * 60 if span else float("inf")
    shown = "limit not reached (too few calls)" if share is None else f"{share:.1%}"
    print(
        f"  (b) {calls} helpdesk calls in {span:.1f} s ({pace:.0f} a minute overall); "
        f"share of the limit over whole windows: {shown} (target >= 95%)"
    )
    print(f"      429s received: {run.statuses(429)} (target 0)")
    return ok


def with_latency(desired: DesiredState, root: Path, latency: float) -> tuple[Plan, bool]:
    """Part 2; the plan executed, and whether the writes equal the operations planned."""
    faults = f"slow=1.0,slow_seconds={latency}"
    print(f"\n2. no rate limit, every answer {latency * 1000:.0f} ms late ({faults})")
    runs = {}
    ok = True
    for label, concurrency in (("concurrent", PARALLEL_CHANGES), ("one at a time", 1)):
        runs[label] = run = bootstrap(
            desired,
            root / f"latency-{concurrency}.db",
            rate_limit=0,
            search_rate_limit=0,
            faults=faults,
            parallelism=concurrency,
        )
        ok &= print_writes(f"(a) {label}", run)
        operations = run.plan.operation_count
        server = "?" if run.sandbox_cpu is None else f"{run.sandbox_cpu / operations * 1000:.2f}"
        print(
            f"  {label} (max {concurrency} in flight): executed {operations} operations "
            f"in {run.execute_seconds:.1f} s; CPU per operation: reconciler "
            f"{run.client_cpu / operations * 1000:.2f} ms, sandbox {server} ms"
        )
    speedup = runs["one at a time"].execute_seconds / runs["concurrent"].execute_seconds
    print(f"  (c) speed-up of --parallelism {PARALLEL_CHANGES}: {speedup:.1f}x (target >= 8x)")
    return runs["concurrent"].plan, ok


def without_network(plan: Plan, latency: float) -> None:
    """Part 3: the reconciler's own speed-up, the reference for part 2."""
    print(
        f"\n3. without network: the same plan through the client stack, httpx's MockTransport "
        f"answering {latency * 1000:.0f} ms late"
    )
    runs = {}
    for concurrency in (PARALLEL_CHANGES, 1):
        wall, cpu = runs[concurrency] = execute_without_network(plan, latency, concurrency)
        print(
            f"  --parallelism {concurrency}: {plan.operation_count} operations in "
            f"{wall:.1f} s; CPU per operation {cpu / plan.operation_count * 1000:.2f} ms"
        )
    speedup = runs[1][0] / runs[PARALLEL_CHANGES][0]
    print(f"  speed-up of --parallelism {PARALLEL_CHANGES}: {speedup:.1f}x (target >= 8x)")


if __name__ == "__main__":
    main()
