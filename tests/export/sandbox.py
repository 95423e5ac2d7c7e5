"""In-process sandboxes for the export tests: a `SandboxState` reached through
`httpx.ASGITransport` (no socket), the `Connection` that logs into it, and the round
trip itself: export, write the files, load them as manifests, plan against the same
sandbox."""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx

from reconciler.clients.auth import Secret
from reconciler.clients.connection import (
    Connection,
    HelpdeskConnection,
    RateSettings,
    WorkspaceConnection,
)
from reconciler.export.result import ExportResult
from reconciler.export.selection import Selection
from reconciler.manifest.desired import DesiredState
from reconciler.manifest.loader import load_manifests
from reconciler.plans import Plan
from reconciler.run.export import export_live, write_directory
from reconciler.sandbox.app import create_app
from reconciler.sandbox.config import SandboxConfig
from reconciler.sandbox.seed import Credentials, initialise
from reconciler.sandbox.state import SandboxState
from reconciler.sandbox.store import Store
from reconciler.session.workflow import read_and_plan

ROOT = Path(__file__).parents[2]
ACME_SEED = ROOT / "reconciler" / "sandbox" / "seeds" / "acme.yaml"
ACME_RULES = (101, 102, 103)
HELPDESK_URL = "http://127.0.0.1/helpdesk"
WORKSPACE_URL = "http://127.0.0.1/workspace"


def new_state(*quirks: str) -> SandboxState:
    # No rate limits: the tests' exports and plans follow each other at once.
    config = SandboxConfig(rate_limit=0, search_rate_limit=0, quirks=set(quirks))
    return SandboxState(Store(None), config)


def seeded(*quirks: str, seed: Path = ACME_SEED) -> tuple[SandboxState, Credentials]:
    state = new_state(*quirks)
    return state, initialise(state, seed)


def connection(credentials: Credentials, *, workspace: bool = True) -> Connection:
    return Connection(
        HelpdeskConnection(
            HELPDESK_URL,
            username=credentials.helpdesk_username,
            password=Secret(credentials.helpdesk_password),
        ),
        WorkspaceConnection(WORKSPACE_URL, Secret(credentials.workspace_api_key))
        if workspace
        else None,
        RateSettings(0, 0),
    )


def transport(state: SandboxState) -> httpx.AsyncBaseTransport:
    return httpx.ASGITransport(app=create_app(state), client=("127.0.0.1", 5000))


class WithoutListedOptions(httpx.AsyncBaseTransport):
    """The sandbox as a version that names the option of each dropdown value
    (`ValueWithOption`, quirk customfield-extra-keys) but lists no field's options:
    `SelectionComboOptions` is taken out of every `CustomFields` answer."""

    def __init__(self, state: SandboxState) -> None:
        self._inner = transport(state)

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        response = await self._inner.handle_async_request(request)
        if not request.url.path.endswith("/api/CustomFields"):
            return response
        body = json.loads(await response.aread())
        for item in body:
            item.pop("SelectionComboOptions", None)
        return httpx.Response(response.status_code, json=body)


@dataclass
class RoundTrip:
    result: ExportResult
    directory: Path
    desired: DesiredState
    plan: Plan
    requests: list[dict[str, Any]]  # what the export sent (the sandbox's request log)


def export(
    state: SandboxState,
    credentials: Credentials,
    selection: Selection | None = None,
    *,
    include_empty: bool = False,
    via: httpx.AsyncBaseTransport | None = None,
    workspace: bool = True,
) -> ExportResult:
    return asyncio.run(
        export_live(
            connection(credentials, workspace=workspace),
            selection or Selection.build(rule_ids=ACME_RULES),
            include_empty=include_empty,
            transport=via or transport(state),
        )
    )


def plan_files(
    state: SandboxState,
    credentials: Credentials,
    paths: list[Path],
    *,
    via: httpx.AsyncBaseTransport | None = None,
) -> tuple[DesiredState, Plan]:
    desired = load_manifests(paths, env={})
    outcome = asyncio.run(
        read_and_plan(desired, connection(credentials), transport=via or transport(state))
    )
    return desired, outcome.plan


def round_trip(
    state: SandboxState,
    credentials: Credentials,
    directory: Path,
    selection: Selection | None = None,
    *,
    include_empty: bool = False,
    via_factory: Any = transport,
) -> RoundTrip:
    before = len(state.requests)
    result = export(
        state, credentials, selection, include_empty=include_empty, via=via_factory(state)
    )
    requests = list(state.requests)[before:]
    write_directory(result, directory)
    desired, plan = plan_files(state, credentials, [directory], via=via_factory(state))
    return RoundTrip(result, directory, desired, plan, requests)


def describe(plan: Plan) -> list[str]:
    """The plan's changes and diagnostics, readably (for assertion messages)."""
    lines = [
        f"{c.action.value} {c.address}: "
        + ", ".join(f"{f.path}: {f.before!r} -> {f.after!r}" for f in c.fields)
        for c in plan.changes
    ]
    lines += [f"{d.severity}: {d.to_dict()}" for d in (*plan.errors, *plan.warnings)]
    return lines
