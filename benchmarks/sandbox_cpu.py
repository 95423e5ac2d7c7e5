"""The sandbox's CPU per request during the concurrent apply of client_cpu.py part 2 (issue 25).

`reconciler apply --parallelism 10` bootstraps the generated tenant (apply_bench's: 1,100
objects, 1,700 writes) into a fresh sandbox whose every answer is `--latency` late. Printed:
the sandbox server's CPU per request (from /proc, user + system; the minimum over
`--repeat` runs), the client's CPU, and from the sandbox's own request log the time its
handler took (the delay included) for the writes: how late the delay ends with ten in
flight. CPU per request moves little with the machine's load, unlike wall time.

`--profile FILE` runs the sandbox under cProfile on the CPU clock
(benchmarks/profile_command.py): the printed profile in FILE.txt, pstats in FILE.

    python benchmarks/sandbox_cpu.py [--repeat 3] [--latency 0.02] [--parallelism 10]
    python benchmarks/sandbox_cpu.py --profile FILE [--top 40]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import urllib.request
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from apply_bench import add_tenant_arguments, write_tenant
from client_cpu import child, sandbox_args
from processes import compile_package, process_cpu

from reconciler.sandbox.process import SandboxProcess


def one_run(
    tenant: Path, root: Path, parallelism: int, latency: float, runner: list[str] | None
) -> dict[str, float]:
    db, log = root / "s.db", root / "s.jsonl"
    db.unlink(missing_ok=True)
    log.unlink(missing_ok=True)
    faults = f"slow=1.0,slow_seconds={latency}" if latency else ""
    with SandboxProcess(db, *sandbox_args(faults), runner=runner) as sandbox:
        pid = sandbox.proc.pid if sandbox.proc else 0
        before = process_cpu(pid)
        args = ["apply", str(tenant), "--yes", "--rate-limit", "0", "--search-rate-limit", "0"]
        args += ["--parallelism", str(parallelism), "--log", str(log)]
        cpu, wall, _ = child(args, sandbox.env)
        server = process_cpu(pid) - before
        with urllib.request.urlopen(f"{sandbox.url}/_sandbox/requests") as answer:
            requests = json.loads(answer.read())
    writes = [r["ms"] for r in requests if r["method"] != "GET" and r["service"] == "helpdesk"]
    return {
        "wall": wall,
        "client": cpu,
        "server": server,
        "requests": len(requests),
        "handler_median": statistics.median(writes) if writes else 0.0,
        "handler_p90": statistics.quantiles(writes, n=10)[-1] if len(writes) > 10 else 0.0,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_tenant_arguments(parser)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--latency", type=float, default=0.02, help="seconds per answer")
    parser.add_argument("--parallelism", type=int, default=10)
    parser.add_argument("--profile", metavar="FILE", help="cProfile the sandbox server")
    parser.add_argument("--top", type=int, default=40)
    args = parser.parse_args()
    compile_package()
    runner = None
    if args.profile:
        runner = [str(Path(__file__).with_name("profile_command.py")), "--top", str(args.top),
                  "--out", args.profile, "--report", f"{args.profile}.txt", "--"]  # fmt: skip
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        tenant = root / "tenant"
        tenant.mkdir()
        write_tenant(tenant, args.companies, args.users, args.assets)
        runs = [
            one_run(tenant, root, args.parallelism, args.latency, runner)
            for _ in range(1 if args.profile else args.repeat)
        ]
    print(
        f"sandbox CPU: `apply --parallelism {args.parallelism}`, every answer "
        f"{args.latency * 1000:.0f} ms late, {len(runs)} run(s)"
    )
    for run in runs:
        count = run["requests"]
        print(
            f"  {count:.0f} requests in {run['wall']:.2f} s; the sandbox {run['server']:.2f} s "
            f"CPU = {run['server'] / count * 1000:.3f} ms per request; the client "
            f"{run['client']:.2f} s CPU; the sandbox's handler (delay included), writes: "
            f"median {run['handler_median']:.2f} ms, 90th {run['handler_p90']:.2f} ms"
        )
    best = min(runs, key=lambda run: run["server"] / run["requests"])
    print(f"  best: the sandbox {best['server'] / best['requests'] * 1000:.3f} ms CPU per request")
    if args.profile:
        print(f"  the sandbox's profile: {args.profile}.txt (pstats: {args.profile})")


if __name__ == "__main__":
    main()
