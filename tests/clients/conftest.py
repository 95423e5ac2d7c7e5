"""Fixtures for client tests: the sandbox app in-process (httpx.ASGITransport, no socket),
a fake clock shared by the sandbox and the client, and a sleep that records its waits."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterator
from typing import Any

import httpx
import pytest

from reconciler import masking
from reconciler.clients import BasicAuth, HelpdeskClient, RateLimits, RetryPolicy, WorkspaceClient
from reconciler.clients.auth import HelpdeskAuth
from reconciler.sandbox.app import create_app
from reconciler.sandbox.config import SandboxConfig
from reconciler.sandbox.state import SandboxState
from tests.sandbox.conftest import FakeClock
from tests.sandbox.conftest import make_state as sandbox_state

PASSWORDS = {"admin": "admin-pass-7f3k", "tina": "tina-pass-9q2w", "ursula": "ursula-pass-4z8x"}
TOKENS = {name: f"{name}-token-5d1c" for name in PASSWORDS}
WORKSPACE_KEY = "ws-key-8e2b7c"
HELPDESK_URL = "http://sandbox.test/helpdesk"
WORKSPACE_URL = "http://sandbox.test/workspace"


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(autouse=True)
def credentials_forgotten() -> Iterator[None]:
    """Each credential a client is made with is masked process-wide from then on (by
    design): forgotten after each test, so that a later test elsewhere does not find `***`
    in what it writes where a test password such as "secret" stood (the manifest schema
    holds that word)."""
    yield
    masking.install({})


class Sleeper:
    """An injectable `sleep`: records each wait, moves the fake clock, yields once."""

    def __init__(self, clock: FakeClock | None = None) -> None:
        self.clock = clock
        self.waits: list[float] = []

    async def __call__(self, seconds: float) -> None:
        self.waits.append(seconds)
        if self.clock is not None:
            self.clock.advance(seconds)
        await asyncio.sleep(0)


class DroppingASGITransport(httpx.AsyncBaseTransport):
    """ASGITransport as a socket behaves: when the app fails mid-answer (the sandbox's
    injected dropped connection), the client sees a `RemoteProtocolError`, not the
    server's own exception."""

    def __init__(self, state: SandboxState, client: tuple[str, int] = ("127.0.0.1", 5000)):
        self._inner = httpx.ASGITransport(app=create_app(state), client=client)

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        try:
            return await self._inner.handle_async_request(request)
        except Exception as exc:  # the app's own failure, as a client would see it
            raise httpx.RemoteProtocolError(f"server disconnected ({type(exc).__name__})") from exc


def make_state(
    config: SandboxConfig | None = None, clock: Callable[[], float] | None = None
) -> SandboxState:
    """tests/sandbox/conftest.py's sandbox, with secrets distinctive enough that a test
    can tell they never leak into a message or a log."""
    return sandbox_state(
        config, clock, passwords=PASSWORDS, tokens=TOKENS, workspace_key=WORKSPACE_KEY
    )


def no_limits() -> SandboxConfig:
    return SandboxConfig(rate_limit=0, search_rate_limit=0)


def fast_retry(sleeper: Sleeper | None = None, **overrides: Any) -> RetryPolicy:
    return RetryPolicy(sleep=sleeper or Sleeper(), jitter=lambda: 0.5, **overrides)


def admin_auth() -> HelpdeskAuth:
    return BasicAuth("admin", PASSWORDS["admin"])


def client_over(
    transport: httpx.AsyncBaseTransport, retry: RetryPolicy, **kwargs: Any
) -> HelpdeskClient:
    """A helpdesk client at `http://h` over `transport` (a script of answers), with no rate
    limit of its own."""
    return HelpdeskClient(
        "http://h",
        BasicAuth("admin", "pw"),
        transport=transport,
        limits=RateLimits(general=0, search=0),
        retry=retry,
        **kwargs,
    )


def helpdesk_client(
    state: SandboxState,
    auth: HelpdeskAuth | None = None,
    *,
    sleeper: Sleeper | None = None,
    limits: RateLimits | None = None,
    retry: RetryPolicy | None = None,
    **kwargs: Any,
) -> HelpdeskClient:
    return HelpdeskClient(
        HELPDESK_URL,
        auth or admin_auth(),
        limits=limits or RateLimits(general=0, search=0),
        retry=retry or fast_retry(sleeper),
        transport=DroppingASGITransport(state),
        **kwargs,
    )


def workspace_client(
    state: SandboxState, key: str = WORKSPACE_KEY, *, sleeper: Sleeper | None = None, **kwargs: Any
) -> WorkspaceClient:
    return WorkspaceClient(
        WORKSPACE_URL,
        key,
        retry=fast_retry(sleeper),
        transport=DroppingASGITransport(state),
        **kwargs,
    )


def api_requests(state: SandboxState, service: str = "helpdesk") -> list[dict[str, Any]]:
    """The sandbox's request log for one service."""
    return [r for r in state.requests if r["service"] == service]


def endpoint_calls(state: SandboxState, name: str) -> list[dict[str, Any]]:
    return [r for r in api_requests(state) if r["path"].lower().endswith(f"/api/{name.lower()}")]


MockHandler = Callable[[httpx.Request], httpx.Response]


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def state(clock: FakeClock) -> SandboxState:
    return make_state(no_limits(), clock)


@pytest.fixture
def sleeper(clock: FakeClock) -> Sleeper:
    return Sleeper(clock)
