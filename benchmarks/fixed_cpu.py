"""The fixed CPU of a large plan or apply, phase by phase, in process (issue 25, round five).

A generated tenant (apply_bench's: 100 companies, 500 users, 500 assets by default) is
planned once against a fresh sandbox (`plan --out`); then, in this process, the CPU
seconds (`time.process_time`, minimum and median of `--repeat`) of loading the manifests,
the offline checks and warnings, ordering the changes and `format_text` of the saved
plan, with the sha256 of the printed plan (plain, and coloured with operations; the
scratch directory's name replaced) so that two versions can be shown to print the same
bytes. Run it with `PYTHONPATH=COPY` to
measure another copy of `reconciler/` on the same machine in the same minutes.

    python benchmarks/fixed_cpu.py [--repeat 15] [--companies 100 --users 500 --assets 500]
"""

from __future__ import annotations

import argparse
import hashlib
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from apply_bench import write_tenant
from client_cpu import sandbox_args

import reconciler
from reconciler.manifest import load_manifests, reference_warnings, validate_references
from reconciler.manifest.desired import DesiredState
from reconciler.planning.order import order_changes
from reconciler.plans.planfile import plan_from_json
from reconciler.render.text import format_text
from reconciler.sandbox.process import SandboxProcess


def cpu(work: Callable[[], object], repeat: int) -> str:
    samples = []
    for _ in range(repeat):
        began = time.process_time()
        work()
        samples.append(time.process_time() - began)
    return f"min {min(samples) * 1000:.1f} ms, median {statistics.median(samples) * 1000:.1f} ms"


def checks(desired: DesiredState) -> object:
    return validate_references(desired), reference_warnings(desired)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--companies", type=int, default=100)
    parser.add_argument("--users", type=int, default=500)
    parser.add_argument("--assets", type=int, default=500)
    parser.add_argument("--repeat", type=int, default=15)
    args = parser.parse_args()
    print(f"reconciler from {Path(reconciler.__file__).parent}; load average {os.getloadavg()}")
    with tempfile.TemporaryDirectory() as scratch:
        root = Path(scratch)
        tenant = root / "tenant"
        tenant.mkdir()
        write_tenant(tenant, args.companies, args.users, args.assets)
        with SandboxProcess(root / "plan.db", *sandbox_args()) as sandbox:
            command = [sys.executable, "-m", "reconciler", "plan", str(tenant)]
            subprocess.run(
                [*command, "--out", str(root / "plan.json")],
                env={**os.environ, **sandbox.env},
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                check=True,
            )
        plan = plan_from_json((root / "plan.json").read_text())
        desired = load_manifests([tenant], os.environ)
        fields = sum(len(change.fields) for change in plan.changes)
        print(f"{len(plan.changes)} changes, {fields} fields; CPU of each phase:")
        phases: list[tuple[str, Callable[[], object]]] = [
            ("loading the manifests", lambda: load_manifests([tenant], os.environ)),
            ("offline checks, warnings", lambda: checks(desired)),
            ("ordering the changes", lambda: order_changes(plan.changes)),
            ("format_text", lambda: format_text(plan)),
        ]
        for name, work in phases:
            print(f"  {name:<25}{cpu(work, args.repeat)}")
        plain = hashlib.sha256(format_text(plan).replace(scratch, "ROOT").encode()).hexdigest()[:16]
        rich = format_text(plan, color=True, show_operations=True).replace(scratch, "ROOT")
        print(f"sha256 of the printed plan: {plain}, coloured with operations: "
              f"{hashlib.sha256(rich.encode()).hexdigest()[:16]}")  # fmt: skip


if __name__ == "__main__":
    main()
