"""System calls of the sandbox and the client during the concurrent apply (issue 25).

client_cpu.py part 2's `apply --parallelism 10` (1,100 objects, 1,700 writes, every answer
`--latency` late) with `strace -c -f` on both processes (the sandbox attached once it
serves, the client started under it): counts of calls, which the machine's load changes
little (except `epoll_wait`, which depends on timing), e.g. whether an answer reaches the
client in one segment (`sendto` of the sandbox, `recvfrom` of the client, per request).
Needs `strace` and permission to attach to a child.

    python benchmarks/syscalls.py [--latency 0.02] [--out DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from apply_bench import write_tenant
from client_cpu import sandbox_args
from processes import compile_package

from reconciler.sandbox.process import SandboxProcess

SHOWN = ("sendto", "recvfrom", "epoll_wait", "write", "read", "pwrite64", "fcntl")


def counts(report: Path) -> dict[str, int]:
    out: dict[str, int] = {}
    for line in report.read_text().splitlines():
        fields = line.split()
        if len(fields) >= 5 and re.fullmatch(r"[\d.]+", fields[0]):
            out[fields[-1]] = int(fields[3])
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--latency", type=float, default=0.02)
    parser.add_argument("--out", help="keep strace's reports in this directory")
    args = parser.parse_args()
    compile_package()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        out = Path(args.out) if args.out else root
        out.mkdir(parents=True, exist_ok=True)
        tenant = root / "tenant"
        tenant.mkdir()
        write_tenant(tenant, 100, 500, 500)
        faults = f"slow=1.0,slow_seconds={args.latency}" if args.latency else ""
        with SandboxProcess(root / "s.db", *sandbox_args(faults)) as sandbox:
            pid = sandbox.proc.pid if sandbox.proc else 0
            server_report, client_report = out / "server.txt", out / "client.txt"
            tracer = subprocess.Popen(
                ["strace", "-c", "-f", "-o", str(server_report), "-p", str(pid)],
                stderr=subprocess.DEVNULL,
            )
            time.sleep(1)  # attached
            command = [sys.executable, "-m", "reconciler", "apply", str(tenant), "--yes",
                       "--rate-limit", "0", "--search-rate-limit", "0", "--parallelism", "10",
                       "--log", str(root / "log.jsonl")]  # fmt: skip
            subprocess.run(
                ["strace", "-c", "-f", "-o", str(client_report), *command],
                env={**os.environ, **sandbox.env},
                stdout=subprocess.DEVNULL,
                check=True,
            )
            tracer.send_signal(signal.SIGINT)
            tracer.wait()
        entries = [json.loads(line) for line in (root / "log.jsonl").read_text().splitlines()]
        requests = sum(1 for entry in entries if entry.get("outcome") == "ok") or 1
        print(f"system calls of `apply --parallelism 10`, {requests} writes, per write:")
        for name, report in (("sandbox", server_report), ("client", client_report)):
            found = counts(report)
            shown = ", ".join(
                f"{call} {found[call]} ({found[call] / requests:.2f})"
                for call in SHOWN
                if call in found
            )
            print(f"  {name}: {shown}")


if __name__ == "__main__":
    main()
