"""The sandbox in-process for apply tests: a seeded state, a `Connection` to it through
`httpx.ASGITransport` (no socket), and a transport that loses answers on purpose."""

from __future__ import annotations

from collections import Counter
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
from reconciler.manifest.desired import DesiredState
from reconciler.sandbox.app import create_app
from reconciler.sandbox.config import SandboxConfig
from reconciler.sandbox.process import InProcessTransport
from reconciler.sandbox.seed import Credentials, initialise
from reconciler.sandbox.state import SandboxState
from reconciler.sandbox.store import Store
from tests.applying.readback import Readback

ROOT = Path(__file__).parents[2]
EXAMPLE = ROOT / "examples" / "acme"
SEEDS = ROOT / "reconciler" / "sandbox" / "seeds"
CLIENT = ("127.0.0.1", 5000)


def seeded(seed: str) -> tuple[SandboxState, Credentials]:
    """A fresh in-memory sandbox from `seeds/<seed>.yaml`, without rate limits."""
    state = SandboxState(Store(None), SandboxConfig(rate_limit=0, search_rate_limit=0))
    return state, initialise(state, SEEDS / f"{seed}.yaml")


def asgi(state: SandboxState) -> httpx.ASGITransport:
    return httpx.ASGITransport(app=create_app(state), client=CLIENT)


def connection(credentials: Credentials) -> Connection:
    return Connection(
        HelpdeskConnection(
            "http://127.0.0.1/helpdesk",
            username=credentials.helpdesk_username,
            password=Secret(credentials.helpdesk_password),
        ),
        WorkspaceConnection("http://127.0.0.1/workspace", Secret(credentials.workspace_api_key)),
        RateSettings(0, 0),
    )


def admin_client(
    state: SandboxState, credentials: Credentials, base: str = "http://127.0.0.1"
) -> httpx.Client:
    """A plain synchronous client, for changes made "out of band" (not by reconciler) and
    for reading the state back."""
    return httpx.Client(
        base_url=base,
        transport=InProcessTransport(create_app(state), client=CLIENT),
        auth=(credentials.helpdesk_username, credentials.helpdesk_password),
    )


def workspace_client(state: SandboxState, credentials: Credentials) -> httpx.Client:
    return httpx.Client(
        base_url="http://127.0.0.1/workspace/api/",
        transport=InProcessTransport(create_app(state), client=CLIENT),
        headers={"X-API-Key": credentials.workspace_api_key},
    )


def mismatches(state: SandboxState, credentials: Credentials, desired: DesiredState) -> list[str]:
    """Every manifest field the sandbox's state does not match (tests/applying/readback.py)."""
    with (
        admin_client(state, credentials, "http://127.0.0.1/helpdesk/api/") as helpdesk,
        workspace_client(state, credentials) as workspace,
    ):
        return Readback(helpdesk, workspace, desired).mismatches()


class LosingTransport(httpx.AsyncBaseTransport):
    """Passes requests to the sandbox, but loses the answer of the first `count` requests
    to each `(METHOD, path)` in `lose`: after the sandbox acted on them (a dropped
    connection), or with `before=True` before they reach it (a request lost on the way)."""

    def __init__(
        self, inner: httpx.AsyncBaseTransport, lose: dict[tuple[str, str], int], *, before: bool
    ) -> None:
        self.inner = inner
        self.left = Counter(lose)
        self.before = before
        self.lost: list[tuple[str, str]] = []

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        key = (request.method, request.url.path)
        if self.left[key] > 0:
            self.left[key] -= 1
            self.lost.append(key)
            if not self.before:
                answer = await self.inner.handle_async_request(request)
                await answer.aread()
            raise httpx.ReadError("connection reset by peer", request=request)
        return await self.inner.handle_async_request(request)


def requests_to(state: SandboxState, method: str, path: str) -> list[dict[str, Any]]:
    """The requests the sandbox received for `METHOD path` (its own request log)."""
    return [r for r in state.requests if r["method"] == method and r["path"] == path]
