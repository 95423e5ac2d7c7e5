"""Time of the pure planner, `plan(desired, live)`, for 10,000 desired objects against
10,000 live ones and for 100,000 against 100,000 (targets: under a second for 10,000, and
at most 11x the time for 10x the objects, issue 13), with the peak memory planning
allocates. The live state is parsed from generated API answers first (not timed); one
object in ten differs, so the plan is not empty. A fifth are companies, two fifths users,
two fifths assets.

CPU time (`time.process_time`) is printed next to wall time: on a shared machine the wall
time mostly measures the other processes.

    python benchmarks/planner_speed.py [--sizes 10000 100000] [--repeat 3]
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import sys
import time
import tracemalloc
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from reconciler.kinds.register import RESOURCES
from reconciler.live import LiveState, read_live
from reconciler.manifest.desired import DesiredState
from reconciler.manifest.document import Manifest
from reconciler.planning.plan import plan
from tests.planning.fakes import SnapshotClient


def tenant(total: int) -> tuple[DesiredState, dict[str, Any]]:
    companies, users = total // 5, 2 * total // 5
    assets = total - companies - users
    changed = [i % 10 == 0 for i in range(max(companies, users, assets))]
    snapshot: dict[str, Any] = {
        "Companies": [
            {
                "CompanyID": c + 1,
                "Name": f"Company {c:06d}",
                "EmailDomain": f"c{c}.example.com",
                "Notes": "n",
            }
            for c in range(companies)
        ],
        "Departments": [{"DepartmentID": d + 1, "Name": f"Dept {d}"} for d in range(20)],
        "Users": [
            {
                "UserID": u + 1,
                "Username": f"user{u:06d}",
                "Email": f"user{u:06d}@example.com",
                "FirstName": "U",
                "LastName": str(u),
                "Notes": "",
                "Location": "",
                "Phone": "",
                "CompanyName": f"Company {u % companies:06d}",
                "CompanyId": u % companies + 1,
                "DepartmentID": u % 20 + 1,
                "IsAdmin": False,
                "Disabled": False,
                "LastSeen": None,
            }
            for u in range(users)
        ],
        "Assets": [
            {
                "ItemID": a + 1,
                "SerialNumber": f"SN-{a:07d}",
                "ModelName": "X1",
                "Manufacturer": "Lenovo",
                "Type": "Laptop",
                "Supplier": "CDW",
                "Location": "HQ",
                "Comments": None,
                "Quantity": 1,
                "CompanyID": a % companies + 1,
                "AssignedUsers": [{"UserID": a % users + 1, "Username": f"user{a % users:06d}"}],
                "Fields": [],
            }
            for a in range(assets)
        ],
    }
    for u in range(0, users, 10):  # the users that get an UpdateUser need their full record
        item = snapshot["Users"][u]
        snapshot[f"User?userId={u + 1}"] = {
            **item,
            "Departman": f"Dept {u % 20}",
            "Greeting": "",
            "Signature": "",
            "SendEmail": True,
        }
    manifest = Manifest.model_validate(
        {
            "companies": [
                {
                    "name": f"Company {c:06d}",
                    "email_domains": [f"c{c}.example.com"],
                    "notes": "new" if changed[c] else "n",
                }
                for c in range(companies)
            ],
            "users": [
                {
                    "username": f"user{u:06d}",
                    "email": f"user{u:06d}@example.com",
                    "first_name": "U",
                    "last_name": str(u) + ("x" if changed[u] else ""),
                    "company": f"Company {u % companies:06d}",
                    "department": f"Dept {u % 20}",
                }
                for u in range(users)
            ],
            "assets": [
                {
                    "serial_number": f"SN-{a:07d}",
                    "model_name": "X1",
                    "manufacturer": "Lenovo",
                    "type": "Laptop",
                    "supplier": "CDW",
                    "location": "HQ2" if changed[a] else "HQ",
                    "company": f"Company {a % companies:06d}",
                    "assigned_users": [f"user{a % users:06d}"],
                }
                for a in range(assets)
            ],
        }
    )
    return DesiredState.from_manifest(manifest), snapshot


def time_plan(total: int, repeat: int) -> dict[str, float]:
    """Best of `repeat` runs of `plan`; the peak memory one plan allocates; the changes
    planned."""
    desired, snapshot = tenant(total)
    live: LiveState = asyncio.run(read_live(desired, RESOURCES, helpdesk=SnapshotClient(snapshot)))
    figures: dict[str, float] = {}
    best = best_cpu = float("inf")
    for _ in range(repeat):
        gc.collect()
        started, cpu = time.perf_counter(), time.process_time()
        result = plan(desired, live, resources=RESOURCES)
        best = min(best, time.perf_counter() - started)
        best_cpu = min(best_cpu, time.process_time() - cpu)
        assert not result.errors, result.errors[:3]
    figures["time"], figures["cpu"] = best, best_cpu
    figures["changes"] = len(result.changes)
    gc.collect()
    tracemalloc.start()
    plan(desired, live, resources=RESOURCES)
    figures["peak_mb"] = tracemalloc.get_traced_memory()[1] / 1e6
    tracemalloc.stop()
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    print(f"pure planner: desired against live of the same size (best of {args.repeat} runs)")
    first: tuple[int, dict[str, float]] | None = None
    for size in args.sizes:
        figures = time_plan(size, args.repeat)
        print(
            f"  {size:>7} objects ({figures['changes']:.0f} changes): "
            f"{figures['time']:7.3f} s, {figures['cpu']:.3f} s of CPU "
            f"({figures['cpu'] / size * 1e6:.1f} us/object), "
            f"peak {figures['peak_mb']:.0f} MB allocated"
        )
        if first is None:
            first = (size, figures)
            continue
        base_size, base = first
        print(
            f"    growth for x{size / base_size:.0f} objects: "
            f"x{figures['time'] / base['time']:.1f} time, "
            f"x{figures['cpu'] / base['cpu']:.1f} CPU time"
        )


if __name__ == "__main__":
    main()
