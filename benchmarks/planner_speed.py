"""Time of the pure planner, `plan(desired, live)`, for 10,000 desired objects against
10,000 live ones and for 100,000 against 100,000 (target: under a second for 10,000, and
linear growth). The live state is parsed from generated API answers first (not timed);
one object in ten differs, so the plan is not empty. A fifth are companies, two fifths
users, two fifths assets.

    python benchmarks/planner_speed.py [--sizes 10000 100000] [--repeat 3]
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from reconciler.live import LiveState, read_live
from reconciler.manifest import DesiredState, Manifest
from reconciler.plan import plan
from reconciler.resources import RESOURCES
from tests.planner.fakes import SnapshotClient


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


def time_plan(total: int, repeat: int, collector: bool) -> tuple[float, int]:
    """Best of `repeat` runs; `collector` False times the algorithm alone, without
    CPython's cyclic garbage collector (whose passes grow with the heap)."""
    desired, snapshot = tenant(total)
    live: LiveState = asyncio.run(read_live(desired, RESOURCES, helpdesk=SnapshotClient(snapshot)))
    best = float("inf")
    changes = 0
    for _ in range(repeat):
        gc.collect()
        if not collector:
            gc.disable()
        try:
            started = time.perf_counter()
            result = plan(desired, live, resources=RESOURCES)
            best = min(best, time.perf_counter() - started)
        finally:
            gc.enable()
        changes = len(result.changes)
        assert not result.errors, result.errors[:3]
    return best, changes


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    print("pure planner: desired against live of the same size (best of", args.repeat, "runs)")
    for collector in (True, False):
        print("with the garbage collector" if collector else "without the garbage collector")
        first: tuple[int, float] | None = None
        for size in args.sizes:
            seconds, changes = time_plan(size, args.repeat, collector)
            growth = ""
            if first is None:
                first = (size, seconds)
            else:
                growth = f"  x{seconds / first[1]:.1f} time for x{size / first[0]:.0f} objects"
            print(
                f"  {size:>7} objects: {seconds:7.3f} s ({seconds / size * 1e6:.1f} us/object, "
                + f"{changes} changes){growth}"
            )


if __name__ == "__main__":
    main()
