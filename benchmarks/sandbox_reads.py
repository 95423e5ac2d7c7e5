"""How many simple reads per second the sandbox serves on this machine.

The sandbox runs as its own process (`reconciler sandbox serve`, rate limit off), the
client keeps connections alive, and the figures are printed per endpoint, sequential
and with several client threads. Later benchmarks depend on the sandbox not being the
bottleneck: several hundred reads a second is the aim.

    python benchmarks/sandbox_reads.py [--requests 2000] [--threads 8]
"""

from __future__ import annotations

import argparse
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx

from reconciler.sandbox.process import SandboxProcess


def populate(client: httpx.Client, companies: int, assets: int) -> None:
    for i in range(companies):
        client.post("/Company", data={"name": f"Company {i:03d}"}).raise_for_status()
    for i in range(assets):
        client.post(
            "/Asset",
            data={
                "modelName": f"Model {i}",
                "manufacturer": "Lenovo",
                "type": "Laptop",
                "supplier": "CDW",
                "serialNumber": f"SN-{i:05d}",
            },
        ).raise_for_status()


def measure(
    base: str, auth: tuple[str, str], path: str, params: dict[str, str], n: int, threads: int
) -> float:
    per_thread = n // threads

    def run(_: int) -> None:
        with httpx.Client(base_url=base, auth=auth, timeout=30) as client:
            for _ in range(per_thread):
                client.get(path, params=params).raise_for_status()

    started = time.perf_counter()
    with ThreadPoolExecutor(threads) as pool:
        list(pool.map(run, range(threads)))
    return per_thread * threads / (time.perf_counter() - started)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=2000)
    parser.add_argument("--threads", type=int, default=8)
    args = parser.parse_args()
    with (
        tempfile.TemporaryDirectory() as tmp,
        SandboxProcess(
            Path(tmp) / "bench.db", "--empty", "--rate-limit", "0", "--search-rate-limit", "0"
        ) as sandbox,
    ):
        base = sandbox.helpdesk_url + "/api"
        with httpx.Client(base_url=base, auth=sandbox.auth, timeout=30) as client:
            populate(client, companies=50, assets=500)
        cases = [
            ("GET /Priorities", "/Priorities", {}),
            ("GET /Companies (50)", "/Companies", {}),
            ("GET /Assets page (50 of 500)", "/Assets", {"page": "3"}),
        ]
        print(f"sandbox reads per second ({args.requests} requests each, keep-alive)")
        print(f"{'endpoint':32} {'1 thread':>10} {f'{args.threads} threads':>12}")
        for label, path, params in cases:
            seq = measure(base, sandbox.auth, path, params, args.requests, 1)
            par = measure(base, sandbox.auth, path, params, args.requests, args.threads)
            print(f"{label:32} {seq:10.0f} {par:12.0f}")


if __name__ == "__main__":
    main()
