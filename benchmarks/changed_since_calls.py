"""API calls of `plan --changed-since` against the full plan's, after one user changed in
a generated tenant (issue 13: at most 10 calls).

The tenant: `--users` users (default 500) with custom field values (an employee id, a
cost centre and a start date), in `--companies` companies and five departments, kept in a
git repository. It is applied to a sandbox seeded with the custom field catalogue
(acme-catalogue), so that both plans start from a helpdesk that matches the commit. Then
one user's last name changes in the working tree, and the same sandbox answers the full
plan and the partial plan; the calls are counted from the sandbox's request log. The
sandbox runs in-process with rate limits off.

    python benchmarks/changed_since_calls.py [--users 500 --companies 20]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from plan_calls import connection

from reconciler.applying.session import ApplyOptions, ApplySession
from reconciler.manifest.desired import DesiredState
from reconciler.manifest.validate import validate_manifests
from reconciler.run.scope import changed_since
from reconciler.sandbox.config import SandboxConfig, seed_path
from reconciler.sandbox.seed import initialise
from reconciler.sandbox.state import SandboxState
from reconciler.sandbox.store import Store
from reconciler.session.workflow import read_and_plan

DEPARTMENTS = ("IT", "Finance", "Sales", "Operations", "Legal")
CENTRES = ("CC-100 IT", "CC-200 Finance", "CC-300 Sales", "CC-400 Operations")


def tenant(users: int, companies: int) -> str:
    lines = [
        "settings:",
        "  custom_field_options:",
        "    users:",
        "      Cost centre: {CC-100 IT: 21, CC-200 Finance: 22, CC-300 Sales: 23, "
        "CC-400 Operations: 24}",
        "companies:",
    ]
    lines += [f"  - name: Company {c:03d}\n    notes: Customer {c}" for c in range(companies)]
    lines += ["departments:"] + [f"  - name: {name}" for name in DEPARTMENTS] + ["users:"]
    for u in range(users):
        lines += [
            f"  - username: user{u:04d}",
            f"    email: user{u:04d}@example.com",
            f"    first_name: First{u}",
            f"    last_name: Last{u}",
            f"    company: Company {u % companies:03d}",
            f"    department: {DEPARTMENTS[u % len(DEPARTMENTS)]}",
            "    custom_fields:",
            f"      Employee ID: E-{u:04d}",
            f"      Cost centre: {CENTRES[u % len(CENTRES)]}",
            f"      Start date: 2020-0{1 + u % 9}-1{u % 10}",
        ]
    return "\n".join(lines) + "\n"


def git(root: Path, *args: str) -> None:
    env = {**os.environ, "GIT_AUTHOR_NAME": "b", "GIT_AUTHOR_EMAIL": "b@example.com"}
    env |= {"GIT_COMMITTER_NAME": "b", "GIT_COMMITTER_EMAIL": "b@example.com"}
    subprocess.run(["git", "-C", str(root), *args], check=True, capture_output=True, env=env)


def load(paths: list[Path]) -> DesiredState:
    return validate_manifests(paths, {}).desired


async def bootstrap(desired: DesiredState, state: SandboxState, scratch: Path) -> int:
    conn, transport = connection(state)
    async with ApplySession(
        desired,
        conn,
        options=ApplyOptions(force=True),
        log_path=scratch / "apply.jsonl",
        lock_directory=scratch,
        transport=transport,
    ) as session:
        outcome = await session.apply(confirm=lambda plan: True)
    if outcome.report is None or not outcome.report.ok:
        raise SystemExit(f"the bootstrap failed: {outcome.report}")
    return outcome.plan.operation_count


def plan_calls(desired: DesiredState, state: SandboxState) -> tuple[int, int, Counter[str]]:
    """(calls, changes planned, calls by path) of one plan."""
    conn, transport = connection(state)
    state.requests.clear()
    outcome = asyncio.run(read_and_plan(desired, conn, transport=transport))
    paths = Counter(str(r["path"]).rsplit("/api/", 1)[-1] for r in state.requests)
    return len(state.requests), len(outcome.plan.changes), paths


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--users", type=int, default=500)
    parser.add_argument("--companies", type=int, default=20)
    args = parser.parse_args()
    started = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        manifest = root / "manifests" / "tenant.yaml"
        manifest.parent.mkdir()
        manifest.write_text(tenant(args.users, args.companies), encoding="utf-8")
        git(root, "init", "-q")
        git(root, "add", "-A")
        git(root, "commit", "-qm", "the tenant")
        paths = [root / "manifests"]

        state = SandboxState(Store(None), SandboxConfig(rate_limit=0, search_rate_limit=0))
        initialise(state, seed_path("acme-catalogue"))
        operations = asyncio.run(bootstrap(load(paths), state, root))
        print(
            f"tenant: {args.users} users with custom fields, {args.companies} companies, "
            f"applied ({operations} operations)"
        )
        text = manifest.read_text(encoding="utf-8")
        manifest.write_text(text.replace("last_name: Last7\n", "last_name: Seven\n"))
        print("then one user's last name changed in the working tree")

        current = load(paths)
        full_calls, full_changes, _ = plan_calls(current, state)
        partial, scope = changed_since("HEAD", paths, current, load)
        calls, changes, by_path = plan_calls(partial, state)
        print(f"  full plan:                   {full_calls:5d} API calls, {full_changes} change")
        print(f"  plan --changed-since HEAD:   {calls:5d} API calls, {changes} change")
        print(f"    {scope.describe()}")
        print("    calls: " + ", ".join(f"{path} {n}" for path, n in sorted(by_path.items())))
        print("target (at most 10 calls):", "met" if calls <= 10 else "NOT met")
    print(f"runtime {time.perf_counter() - started:.0f} s")


if __name__ == "__main__":
    main()
