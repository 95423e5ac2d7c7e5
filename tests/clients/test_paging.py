"""`Users` and `Assets` are read page by page until a short page."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from reconciler.clients import BasicAuth, HelpdeskClient, RateLimits
from reconciler.sandbox import records
from reconciler.sandbox.state import SandboxState
from tests.clients.conftest import endpoint_calls, fast_retry, helpdesk_client

pytestmark = pytest.mark.anyio


def add_users(state: SandboxState, total: int) -> None:
    """Bring the sandbox to `total` users (it starts with 3)."""
    with state.store.batch():
        for n in range(total - len(state.store.rows("users"))):
            state.store.insert("users", records.user(f"user{n:04d}", f"user{n:04d}@example.com"))


def add_assets(state: SandboxState, count: int, *, disabled_every: int = 0) -> None:
    store = state.store
    with store.batch():
        ids = {
            t: store.insert(t, records.named(f"{t}-1"))["id"]
            for t in ("manufacturers", "suppliers", "asset_types")
        }
        for n in range(count):
            store.insert(
                "assets",
                records.asset(
                    model_name=f"Model {n}",
                    serial_number=f"SN-{n:04d}",
                    manufacturer_id=ids["manufacturers"],
                    supplier_id=ids["suppliers"],
                    type_id=ids["asset_types"],
                    disabled=bool(disabled_every) and n % disabled_every == 0,
                ),
            )


@pytest.mark.parametrize(("total", "pages"), [(3, 1), (500, 2), (501, 2), (1000, 3), (1201, 3)])
async def test_users_are_read_in_pages_of_500(state: SandboxState, total: int, pages: int) -> None:
    add_users(state, total)
    async with helpdesk_client(state) as client:
        users = await client.users()
    assert len(users) == total
    assert len({u["UserID"] for u in users}) == total
    calls = endpoint_calls(state, "Users")
    assert len(calls) == pages
    assert [c["query"] for c in calls] == [
        {"count": "500", "page": str(n)} for n in range(1, pages + 1)
    ]


async def test_the_users_page_size_is_configurable(state: SandboxState) -> None:
    add_users(state, 25)
    async with helpdesk_client(state, users_page_size=10) as client:
        assert len(await client.users()) == 25
        assert len(await client.users(page_size=5)) == 25
    assert len(endpoint_calls(state, "Users")) == 3 + 6


class FakeUsers:
    """A Users endpoint over a list, to reach sizes the sandbox cannot have (0 users: the
    caller is always one) and servers that ignore `page`."""

    def __init__(self, count: int, *, ignore_page: bool = False) -> None:
        self.users = [{"UserID": n + 1, "Username": f"u{n}"} for n in range(count)]
        self.ignore_page = ignore_page
        self.pages: list[int] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        if request.url.path.endswith("/Authorization"):
            return httpx.Response(200, json={"UserID": 1})
        count = int(request.url.params["count"])
        page = 1 if self.ignore_page else int(request.url.params["page"])
        self.pages.append(int(request.url.params["page"]))
        return httpx.Response(200, json=self.users[(page - 1) * count : page * count])


def fake_client(handler: Any) -> HelpdeskClient:
    return HelpdeskClient(
        "http://h",
        BasicAuth("a", "b"),
        transport=httpx.MockTransport(handler),
        limits=RateLimits(general=0, search=0),
        retry=fast_retry(),
    )


@pytest.mark.parametrize(("count", "pages"), [(0, [1]), (500, [1, 2]), (501, [1, 2])])
async def test_users_paging_stops_at_a_short_page(count: int, pages: list[int]) -> None:
    fake = FakeUsers(count)
    async with fake_client(fake) as client:
        assert await client.users() == fake.users
    assert fake.pages == pages


async def test_a_server_that_ignores_page_cannot_loop_forever() -> None:
    fake = FakeUsers(1200, ignore_page=True)  # always answers the first 500
    async with fake_client(fake) as client:
        users = await client.users()
    assert users == fake.users[:500]
    assert fake.pages == [1, 2]


@pytest.mark.parametrize(("count", "pages"), [(0, 1), (50, 2), (51, 2), (120, 3)])
async def test_assets_are_read_in_pages_of_50(state: SandboxState, count: int, pages: int) -> None:
    add_assets(state, count)
    async with helpdesk_client(state) as client:
        assets = await client.assets(include_disabled=True)
    assert [a["SerialNumber"] for a in assets] == [f"SN-{n:04d}" for n in range(count)]
    calls = endpoint_calls(state, "Assets")
    assert [c["query"] for c in calls] == [
        {"page": str(n), "includeDisabled": "true"} for n in range(1, pages + 1)
    ]


async def test_disabled_assets_are_read_only_when_asked(state: SandboxState) -> None:
    add_assets(state, 120, disabled_every=3)  # 40 disabled
    async with helpdesk_client(state) as client:
        assert len(await client.assets(include_disabled=True)) == 120
        assert len(await client.assets(include_disabled=False)) == 80
    assert len(endpoint_calls(state, "Assets")) == 3 + 2
