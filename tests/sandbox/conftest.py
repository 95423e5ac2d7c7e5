"""Fixtures for sandbox tests: an in-memory sandbox with a fake clock, driven in-process
through an httpx client, and three callers (administrator, technician, user)."""

from __future__ import annotations

import base64
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from datetime import datetime
from typing import Any

import httpx
import pytest

from reconciler.sandbox import records
from reconciler.sandbox.app import create_app
from reconciler.sandbox.config import SandboxConfig
from reconciler.sandbox.process import InProcessTransport
from reconciler.sandbox.state import SandboxState
from reconciler.sandbox.store import Store

PASSWORDS = {"admin": "admin-pass", "tina": "tina-pass", "ursula": "ursula-pass"}
WORKSPACE_KEY = "test-workspace-key"


class FakeClock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


class Api:
    """Calls the helpdesk as one of the fixture users: `api.get("Companies")`,
    `api.post("Company", name="Acme")`, `api.as_("ursula").get(...)`."""

    def __init__(
        self, client: httpx.Client, state: SandboxState, user: str | None = "admin"
    ) -> None:
        self.client = client
        self.state = state
        self.user = user

    def as_(self, user: str | None) -> Api:
        return Api(self.client, self.state, user)

    def headers(self) -> dict[str, str]:
        if self.user is None:
            return {}
        raw = f"{self.user}:{PASSWORDS[self.user]}".encode()
        return {"Authorization": "Basic " + base64.b64encode(raw).decode()}

    def get(self, path: str, **params: Any) -> httpx.Response:
        return self.client.get(f"/helpdesk/api/{path}", params=params, headers=self.headers())

    def post(self, path: str, **data: Any) -> httpx.Response:
        return self.client.post(f"/helpdesk/api/{path}", data=data, headers=self.headers())

    def user_id(self, username: str) -> int:
        rec = self.state.store.find_name("users", username, "username")
        assert rec is not None
        return int(rec["id"])


def make_state(
    config: SandboxConfig | None = None,
    clock: Callable[[], float] | None = None,
    *,
    passwords: Mapping[str, str] = PASSWORDS,
    tokens: Mapping[str, str] | None = None,
    workspace_key: str = WORKSPACE_KEY,
    wall_clock: Callable[[], datetime] | None = None,
) -> SandboxState:
    """An in-memory sandbox with an administrator (`admin`), a technician (`tina`), a plain
    user (`ursula`) and a workspace key."""
    state = SandboxState(
        Store(None), config or SandboxConfig(), clock=clock or FakeClock(), wall_clock=wall_clock
    )
    store = state.store
    for username, role in (("admin", "admin"), ("tina", "technician"), ("ursula", "user")):
        store.insert(
            "users",
            records.user(
                username,
                f"{username}@example.com",
                password=passwords[username],
                token=(tokens or {}).get(username, f"{username}-token"),
                role=role,
                first_name=username.title(),
            ),
        )
    store.insert("ws_api_keys", {"key": workspace_key, "name": "tests"})
    return state


@contextmanager
def api_with(*quirks: str) -> Iterator[Api]:
    """An administrator's `Api` on a fresh sandbox with these quirks on."""
    state = make_state(SandboxConfig(rate_limit=0, search_rate_limit=0, quirks=set(quirks)))
    transport = InProcessTransport(create_app(state))
    with httpx.Client(transport=transport, base_url="http://sandbox.test") as client:
        yield Api(client, state)


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def config() -> SandboxConfig:
    """Rate limits off by default in endpoint tests; the limit tests switch them on."""
    return SandboxConfig(rate_limit=0, search_rate_limit=0)


@pytest.fixture
def state(config: SandboxConfig, clock: FakeClock) -> SandboxState:
    return make_state(config, clock)


@pytest.fixture
def client(state: SandboxState) -> Iterator[httpx.Client]:
    transport = InProcessTransport(create_app(state))
    with httpx.Client(transport=transport, base_url="http://sandbox.test") as c:
        yield c


@pytest.fixture
def api(client: httpx.Client, state: SandboxState) -> Api:
    return Api(client, state)


@pytest.fixture
def ws(client: httpx.Client) -> Iterator[httpx.Client]:
    client.headers["X-API-Key"] = WORKSPACE_KEY
    yield client
