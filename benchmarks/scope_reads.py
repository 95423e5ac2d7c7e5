"""What `settings.scope` saves a plan on a shared helpdesk: the `Users` and `Assets` list
calls and the wall time of a plan at the default rate limit (90 calls a minute, the
sandbox's and the client's), with and without a scope.

The tenant is the built-in seed `shared` (the Acme group plus 20,000 customers of 50 client
companies and 2,000 discovered assets). `examples/shared` is `examples/acme` with a scope
on users and assets to Acme's companies; "no scope" plans `examples/acme`, the same
entries owning every kind whole. The sandbox runs in process (no socket); the calls are
counted from its request log. Goal with the scope: at most 10 list calls, 15 s.

    python benchmarks/scope_reads.py
"""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import httpx

from reconciler.clients import Secret
from reconciler.clients.connection import (
    Connection,
    HelpdeskConnection,
    RateSettings,
    WorkspaceConnection,
)
from reconciler.manifest.loader import load_manifests
from reconciler.sandbox.app import create_app
from reconciler.sandbox.config import SandboxConfig, seed_path
from reconciler.sandbox.seed import initialise
from reconciler.sandbox.state import SandboxState
from reconciler.sandbox.store import Store
from reconciler.session.workflow import read_and_plan

ROOT = Path(__file__).resolve().parents[1]


def shared_tenant() -> tuple[SandboxState, Connection, httpx.ASGITransport]:
    state = SandboxState(Store(None), SandboxConfig())  # the default limits: 90 and 60
    creds = initialise(state, seed_path("shared"))
    transport = httpx.ASGITransport(app=create_app(state), client=("127.0.0.1", 40000))
    conn = Connection(
        HelpdeskConnection("http://sandbox/helpdesk", token=Secret(creds.helpdesk_token)),
        WorkspaceConnection("http://sandbox/workspace", Secret(creds.workspace_api_key)),
        RateSettings(),
    )
    return state, conn, transport


def measure(label: str, example: str) -> None:
    state, conn, transport = shared_tenant()
    desired = load_manifests([ROOT / "examples" / example], env={})
    state.requests.clear()
    started = time.perf_counter()
    outcome = asyncio.run(read_and_plan(desired, conn, transport=transport))
    elapsed = time.perf_counter() - started
    paths = [r["path"].rsplit("/", 1)[-1] for r in state.requests]
    users, assets = paths.count("Users"), paths.count("Assets")
    coverage = outcome.plan.coverage
    shown = {k: f"{c.managed} of {c.live}" for k, c in coverage.kinds.items()} if coverage else {}
    print(f"\n{label} (examples/{example}):")
    print(f"  Users list calls    {users:5d}")
    print(f"  Assets list calls   {assets:5d}")
    print(f"  user+asset lists    {users + assets:5d}")
    print(f"  every call          {len(paths):5d}")
    print(f"  wall time           {elapsed:7.1f} s")
    print(f"  coverage of users   {shown.get('users', '-')}; assets {shown.get('assets', '-')}")
    print(f"  changes planned     {len(outcome.plan.changes):5d}")


def main() -> None:
    measure("with a scope", "shared")
    measure("without a scope", "acme")


if __name__ == "__main__":
    main()
