"""What `settings.ownership` does to `apply --prune` on a shared helpdesk: the customers
touched, the users disabled and kept, and the plan after it.

The tenant is the built-in seed `shared` (the Acme group plus 20,000 customers of 50
client companies and 2,000 discovered assets, and two Acme staff accounts the manifests
do not list: kim, who carries the marker `Managed by: reconciler`, and lee, whom an
administrator added by hand). `examples/shared` scopes users and assets to Acme's
companies and marks what it owns. The run: apply the manifests (creates and listed
objects get the marker), then `apply --prune` of the manifests without hana (a user the
first apply created, so marked), then `plan --prune`. The sandbox runs in process (no
socket); the calls are counted from its request log.

    python benchmarks/ownership.py
"""

from __future__ import annotations

import asyncio
import tempfile
from pathlib import Path
from typing import Any

import httpx
from scope_reads import shared_tenant

from reconciler.applying.session import ApplyOptions, ApplySession
from reconciler.clients.connection import Connection
from reconciler.manifest.desired import DesiredState
from reconciler.manifest.loader import load_manifests
from reconciler.plans import Plan
from reconciler.sandbox.app import create_app
from reconciler.sandbox.state import SandboxState
from reconciler.session.workflow import read_and_plan

ROOT = Path(__file__).resolve().parents[1]


def _without(desired: DesiredState, username: str) -> DesiredState:
    users = [u for u in desired.manifest.users if u.username != username]
    return DesiredState.from_manifest(desired.manifest.model_copy(update={"users": users}))


async def _apply(desired: DesiredState, state: SandboxState, prune: bool, conn: Connection) -> Plan:
    async with ApplySession(
        desired,
        conn,
        options=ApplyOptions(prune=prune),
        transport=_transport(state),
        lock_directory=Path(tempfile.mkdtemp(prefix="reconciler-ownership-")),
    ) as session:
        outcome = await session.apply(confirm=lambda plan: True)
    if outcome.report is not None and not outcome.report.ok:
        raise SystemExit(f"apply failed: {outcome.report}")
    return outcome.plan


def _transport(state: SandboxState) -> httpx.ASGITransport:
    return httpx.ASGITransport(app=create_app(state), client=("127.0.0.1", 40000))


def _shown(request: dict[str, Any]) -> str:
    """A write as `path username status` (a call the rate limit refused is retried)."""
    params = request.get("params") or {}
    who = params.get("username") if isinstance(params, dict) else None
    name = request["path"].rsplit("/", 1)[-1]
    return f"{name}({who}) {request['status']}" if who else f"{name} {request['status']}"


def _disabled_customers(state: SandboxState) -> int:
    return sum(
        1
        for u in state.store.rows("users")
        if str(u["username"]).startswith("customer") and u.get("disabled")
    )


def main() -> None:
    state, conn, _ = shared_tenant()
    desired = load_manifests([ROOT / "examples" / "shared"], env={})
    first = asyncio.run(_apply(desired, state, False, conn))
    marked = [c for c in first.changes if any("Managed by" in f.path for f in c.fields)]
    print("apply examples/shared (ownership: Managed by = reconciler):")
    print(f"  changes applied            {len(first.changes):5d}")
    print(f"  of them setting the marker {len(marked):5d}")

    without_hana = _without(desired, "hana")
    state.requests.clear()
    pruned = asyncio.run(_apply(without_hana, state, True, conn))
    writes = [_shown(r) for r in state.requests if r["method"] != "GET"]
    disabled = sorted(c.key for c in pruned.changes if c.action.value == "disable")
    after = asyncio.run(read_and_plan(without_hana, conn, prune=True, transport=_transport(state)))
    coverage = after.plan.coverage
    unmanaged = coverage.kinds["users"].unmanaged if coverage else ()
    print("\napply --prune, the manifests without hana:")
    print(f"  users disabled             {', '.join(disabled) or '-'}")
    print(f"  unlisted users kept        {', '.join(unmanaged) or '-'} (no marker: unmanaged)")
    planned = [c for c in (*first.changes, *pruned.changes) if c.key.startswith("customer")]
    print(f"  customers changed          {len(planned):5d}")
    print(f"  customers disabled, live   {_disabled_customers(state):5d}")
    print(f"  write calls                {len(writes):5d}: {', '.join(writes)}")
    print(f"  changes of the plan after  {len(after.plan.changes):5d}")
    print(f"  errors of the plan after   {len(after.plan.errors):5d}")


if __name__ == "__main__":
    main()
