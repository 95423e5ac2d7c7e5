"""Where the wall time of `apply --parallelism N` goes (issue 25, part 3): a timeline.

`client_cpu.py` part 2 bootstraps apply_bench's generated tenant into a fresh sandbox
(its own process) whose every answer is `--latency` late. This runs the same apply in
this process, through reconciler's own transport wrapped to note when each request
left and when its answer was back, and prints:

- the phases (authentication and reads, planning, the writes) with their wall time,
  requests and this process's CPU;
- the requests in flight over the writes (mean, and the share of the time with each
  count in flight), and the slowest requests;
- the gaps: how long the writes took against `requests x latency / N`, the floor.

The machine is shared: compare the structure (requests in flight, phases), not the
seconds, with other runs.

    python benchmarks/apply_timeline.py [--parallelism 10] [--latency 0.02]
                                        [--companies 100 --users 500 --assets 500]
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import ssl
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent))

from apply_bench import write_tenant
from processes import process_cpu

from reconciler.applying.session import ApplyOptions, ApplySession, SilentProgress
from reconciler.clients import Secret
from reconciler.clients.connection import Connection, HelpdeskConnection, RateSettings
from reconciler.clients.transport import Transport
from reconciler.manifest import load_manifests
from reconciler.plans import Plan
from reconciler.sandbox.embedded import seed_path
from reconciler.sandbox.process import SandboxProcess


@dataclass
class Timeline:
    began: float = field(default_factory=time.perf_counter)
    requests: list[tuple[float, float, str]] = field(default_factory=list)  # sent, back, what
    server_ms: list[float] = field(default_factory=list)  # the sandbox's time in its handler
    server_pid: int = 0
    # name, wall, CPU, the sandbox's CPU
    marks: list[tuple[str, float, float, float]] = field(default_factory=list)

    def mark(self, name: str) -> None:
        server = process_cpu(self.server_pid) if self.server_pid else 0.0
        self.marks.append((name, time.perf_counter() - self.began, time.process_time(), server))


class Recording(Transport):
    """Reconciler's transport, noting each request's departure and answer."""

    def __init__(self, timeline: Timeline, limits: httpx.Limits) -> None:
        super().__init__(ssl.create_default_context(), limits)
        self.timeline = timeline

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        sent = time.perf_counter() - self.timeline.began
        try:
            return await super().handle_async_request(request)
        finally:
            back = time.perf_counter() - self.timeline.began
            self.timeline.requests.append((sent, back, f"{request.method} {request.url.path}"))


class Marks(SilentProgress):
    def __init__(self, timeline: Timeline) -> None:
        self.timeline = timeline

    def planned(self, plan: Plan) -> None:
        self.timeline.mark("planned")

    def started(self, plan: Plan) -> None:
        self.timeline.mark("writing")

    def finished(self, report: object) -> None:
        self.timeline.mark("finished")


def run(tenant: Path, root: Path, parallelism: int, latency: float) -> Timeline:
    desired = load_manifests([tenant], env={})
    faults = f"slow=1.0,slow_seconds={latency}"
    args = ["--seed", str(seed_path("empty")), "--rate-limit", "0", "--search-rate-limit", "0"]
    with SandboxProcess(root / f"p{parallelism}.db", *args, "--faults", faults) as sandbox:
        user, password = sandbox.auth
        connection = Connection(
            HelpdeskConnection(sandbox.helpdesk_url, username=user, password=Secret(password)),
            None,
            RateSettings(0, 0),
        )
        timeline = Timeline(server_pid=sandbox.proc.pid if sandbox.proc else 0)
        limits = httpx.Limits(max_connections=parallelism, max_keepalive_connections=parallelism)

        async def apply() -> None:
            timeline.mark("start")
            async with ApplySession(
                desired,
                connection,
                options=ApplyOptions(force=True),
                log_path=root / f"p{parallelism}.jsonl",
                transport=Recording(timeline, limits),
                parallelism=parallelism,
            ) as session:
                outcome = await session.apply(confirm=lambda plan: True, progress=Marks(timeline))
                assert outcome.report is not None and outcome.report.ok, outcome.report

        asyncio.run(apply())
        answer = httpx.get(f"{sandbox.url}/_sandbox/requests")
        timeline.server_ms = [entry["ms"] for entry in answer.json() if entry["method"] != "GET"]
    return timeline


def in_flight(requests: list[tuple[float, float, str]], start: float, end: float) -> Counter[int]:
    """Seconds spent with each number of requests in flight between start and end."""
    events = sorted([(s, 1) for s, _, _ in requests] + [(b, -1) for _, b, _ in requests])
    spent: Counter[int] = Counter()
    count, last = 0, start
    for moment, step in events:
        moment = min(max(moment, start), end)
        spent[count] += moment - last
        count, last = count + step, moment
    spent[count] += end - last
    return spent


def report(timeline: Timeline, parallelism: int, latency: float) -> None:
    marks = {name: (wall, cpu, server) for name, wall, cpu, server in timeline.marks}
    phases = [("start", "planned"), ("planned", "writing"), ("writing", "finished")]
    names = {"start": "auth + reads + plan", "planned": "checks", "writing": "writes"}
    for first, second in phases:
        (w0, c0, s0), (w1, c1, s1) = marks[first], marks[second]
        count = sum(1 for s, _, _ in timeline.requests if w0 <= s < w1)
        print(
            f"  {names[first]:20s} {w1 - w0:6.2f} s wall, {c1 - c0:5.2f} s CPU "
            f"(the sandbox {s1 - s0:5.2f} s), {count} requests"
        )
    w0, w1 = marks["writing"][0], marks["finished"][0]
    writes = [r for r in timeline.requests if w0 <= r[0] < w1]
    spent = in_flight(writes, w0, w1)
    total = sum(spent.values())
    mean = sum(n * t for n, t in spent.items()) / total
    floor = len(writes) * latency / parallelism
    print(
        f"  writes: {len(writes)} requests in {w1 - w0:.2f} s (floor at {parallelism} in flight "
        f"{floor:.2f} s); mean in flight {mean:.2f}"
    )
    shares = ", ".join(
        f"{n}: {t / total:.0%}" for n, t in sorted(spent.items()) if t / total > 0.005
    )
    print(f"  share of the writes' time with N in flight: {shares}")
    answers = sorted(b - s for s, b, _ in writes)
    print(
        f"  one request, sent to answered: median {answers[len(answers) // 2] * 1000:.1f} ms, "
        f"90th {answers[len(answers) * 9 // 10] * 1000:.1f} ms, max {answers[-1] * 1000:.1f} ms"
    )
    sends = sorted(r[0] for r in writes)
    gaps = sorted((b - a) * 1000 for a, b in itertools.pairwise(sends))
    if gaps:
        tiles = " / ".join(f"{gaps[len(gaps) * q // 10]:.2f}" for q in (1, 3, 5, 7, 9))
        print(f"  gap between two sends, ms (10th / 30th / 50th / 70th / 90th): {tiles}")
    handled = sorted(timeline.server_ms)
    if handled:
        print(
            f"  the sandbox's handler (its delay included), writes: median "
            f"{handled[len(handled) // 2]:.1f} ms, 90th {handled[len(handled) * 9 // 10]:.1f} ms"
        )
    reads = [r for r in timeline.requests if r[0] < marks["planned"][0]]
    if reads:
        spent = in_flight(reads, marks["start"][0], marks["planned"][0])
        print(
            "  reads in flight (share of auth + reads + plan): "
            + ", ".join(f"{n}: {t / sum(spent.values()):.0%}" for n, t in sorted(spent.items()))
        )
        for sent, back, what in sorted(reads):
            print(f"    {sent:6.3f} -> {back:6.3f}  {what}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--companies", type=int, default=100)
    parser.add_argument("--users", type=int, default=500)
    parser.add_argument("--assets", type=int, default=500)
    parser.add_argument("--latency", type=float, default=0.02, help="seconds per answer")
    parser.add_argument("--parallelism", type=int, default=10)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        tenant = root / "tenant"
        tenant.mkdir()
        write_tenant(tenant, args.companies, args.users, args.assets)
        timeline = run(tenant, root, args.parallelism, args.latency)
        print(
            f"timeline: --parallelism {args.parallelism}, {args.latency * 1000:.0f} ms per answer, "
            f"{len(timeline.requests)} requests"
        )
        report(timeline, args.parallelism, args.latency)


if __name__ == "__main__":
    main()
