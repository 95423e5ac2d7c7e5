"""The workspace client: CRUD against the sandbox, lists in every shape, errors, retries."""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest

from reconciler.clients import RetryPolicy, WorkspaceClient
from reconciler.errors import ApiError, OutcomeUnknown, TransportFailure
from reconciler.sandbox import FaultConfig, SandboxState
from tests.clients.conftest import Sleeper, api_requests, fast_retry, workspace_client

pytestmark = pytest.mark.anyio

ANN = {"email": "ann@example.com", "firstName": "Ann", "lastName": "Lee"}
BOB = {"email": "bob@example.com", "firstName": "Bob", "lastName": "Ray"}


async def test_employee_crud_against_the_sandbox(state: SandboxState) -> None:
    async with workspace_client(state) as ws:
        assert await ws.employees() == []
        ann = await ws.create_employee(ANN)
        bob = await ws.create_employee(BOB)
        assert isinstance(ann["id"], str) and ann["email"] == "ann@example.com"
        await ws.update_employee(ann["id"], {**ANN, "jobTitle": "Engineer"})
        listed = {e["email"]: e for e in await ws.employees()}
        assert listed["ann@example.com"]["jobTitle"] == "Engineer"
        assert listed["bob@example.com"]["id"] == bob["id"]
        await ws.delete_employee(bob["id"])
        assert [e["email"] for e in await ws.employees()] == ["ann@example.com"]


async def test_workspace_errors_carry_the_apis_message(state: SandboxState) -> None:
    async with workspace_client(state) as ws:
        await ws.create_employee(ANN)
        with pytest.raises(ApiError) as duplicate:
            await ws.create_employee(ANN)
        assert duplicate.value.status == 409 and "already exists" in duplicate.value.message
        with pytest.raises(ApiError) as invalid:
            await ws.create_employee({"email": "x@example.com", "shoeSize": 44})
        assert invalid.value.status == 422 and "shoeSize" in invalid.value.message
        with pytest.raises(ApiError) as missing:
            await ws.employee("nope")
        assert missing.value.status == 404 and "Employee nope not found" in missing.value.message
        assert missing.value.path == "/api/employees/nope"


async def test_workspace_reads_are_retried_and_creates_are_not(state: SandboxState) -> None:
    sleeper = Sleeper()
    async with workspace_client(state, sleeper=sleeper) as ws:
        faults = FaultConfig(error_rate=1.0)
        state.config.faults = faults
        state.faults.configure(faults)
        with pytest.raises(TransportFailure):
            await ws.employees()
        assert len(sleeper.waits) == 4
        with pytest.raises(OutcomeUnknown):
            await ws.create_employee(ANN)
        dropped = FaultConfig(drop_rate=1.0)
        state.faults.configure(dropped)
        with pytest.raises(OutcomeUnknown):
            await ws.create_employee(BOB)
        assert [e["email"] for e in await ws.employees()] == ["bob@example.com"]
    assert [r["status"] for r in api_requests(state, "workspace")][-3:] == [500, "dropped", 200]


class Pages:
    """A workspace service over a list of pages, each `(body, status)`; records the URLs."""

    def __init__(self, *pages: Any, status: int = 200) -> None:
        self.pages = {p[0]: p[1] for p in pages}
        self.urls: list[str] = []
        self.status = status

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.urls.append(str(request.url))
        body = self.pages.get(str(request.url), {"error": "no such page"})
        return httpx.Response(self.status, json=body)


def mock(handler: Any, base: str = "https://ws.example.com", **kwargs: Any) -> WorkspaceClient:
    return WorkspaceClient(
        base, "key", transport=httpx.MockTransport(handler), retry=fast_retry(), **kwargs
    )


E1, E2, E3 = {"id": "a1", "email": "1@x.io"}, {"id": 2, "email": "2@x.io"}, {"id": "c3"}
BASE = "https://ws.example.com/api/employees"


@pytest.mark.parametrize(
    "pages",
    [
        [(BASE, [E1, E2, E3])],
        [(BASE, {"data": [E1, E2, E3], "total": 3})],
        [(BASE, {"items": [E1, E2, E3]})],
        [
            (BASE, {"data": [E1], "links": {"next": "/api/employees?page=2"}}),
            (BASE + "?page=2", {"data": [E2], "links": {"next": BASE + "?page=3"}}),
            (BASE + "?page=3", {"data": [E3], "links": {"next": None}}),
        ],
        [
            (BASE, {"data": [E1, E2], "meta": {"total": 3, "next": "employees?cursor=x"}}),
            (BASE + "?cursor=x", {"data": [E3], "meta": {"total": 3}}),
        ],
        [
            (BASE, {"results": [E1], "next": BASE + "?offset=1"}),
            (BASE + "?offset=1", {"results": [E2, E3], "next": ""}),
        ],
        [
            (BASE, {"items": [E1, E2], "_links": {"next": {"href": BASE + "?p=2"}}}),
            (BASE + "?p=2", {"items": [E3], "_links": {}}),
        ],
        [
            (BASE, {"data": [E1, E2], "links": [{"rel": "next", "href": BASE + "?p=2"}]}),
            (BASE + "?p=2", {"data": [E3], "links": []}),
        ],
    ],
    ids=["bare", "data-total", "items", "links-next", "meta-next", "next", "hal", "rel-list"],
)
async def test_lists_in_every_shape(pages: list[tuple[str, Any]]) -> None:
    service = Pages(*pages)
    async with mock(service) as ws:
        employees = await ws.employees()
    assert employees == [E1, E2, E3]  # ids kept exactly as given, str or int
    assert service.urls == [url for url, _ in pages]


async def test_next_links_resolve_under_a_sub_directory() -> None:
    base = "https://host/ws/api/employees"
    service = Pages(
        (base, {"data": [E1], "next": "employees?page=2"}), (base + "?page=2", {"data": [E2]})
    )
    async with mock(service, "https://host/ws/") as ws:
        assert await ws.employees() == [E1, E2]
        assert ws.calls_by_path == {"/api/employees": 2}


async def test_a_next_link_to_another_host_is_refused() -> None:
    service = Pages((BASE, {"data": [E1], "next": "https://evil.example.net/api/employees"}))
    async with mock(service) as ws:
        with pytest.raises(ApiError, match="another host"):
            await ws.employees()
    assert service.urls == [BASE]  # the key never went there


async def test_a_next_link_that_loops_is_refused() -> None:
    service = Pages(
        (BASE, {"data": [E1], "next": BASE + "?p=2"}),
        (BASE + "?p=2", {"data": [E2], "next": BASE}),
    )
    async with mock(service) as ws:
        with pytest.raises(ApiError, match="repeats a page"):
            await ws.employees()


async def test_a_list_shorter_than_its_total_is_refused() -> None:
    service = Pages((BASE, {"data": [E1, E2], "total": 40}))
    async with mock(service) as ws:
        with pytest.raises(ApiError, match="40 items but gave 2"):
            await ws.employees()


@pytest.mark.parametrize("body", [{"error": "x"}, "text", [1, 2], {"data": [1]}])
async def test_answers_that_are_no_list_are_refused(body: Any) -> None:
    service = Pages((BASE, body))
    async with mock(service) as ws:
        with pytest.raises(ApiError):
            await ws.employees()


async def test_workspace_429_is_waited_out() -> None:
    answers = [
        httpx.Response(429, headers={"Retry-After": "3"}, json={"error": "rate limited"}),
        httpx.Response(200, json=[E1]),
    ]

    def handler(request: httpx.Request) -> httpx.Response:
        return answers.pop(0)

    sleeper = Sleeper()
    async with WorkspaceClient(
        "https://ws.example.com",
        "key",
        transport=httpx.MockTransport(handler),
        retry=RetryPolicy(sleep=sleeper),
    ) as ws:
        assert await ws.employees() == [E1]
    assert sleeper.waits == [3.0]


async def test_opaque_ids_are_quoted_in_paths() -> None:
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(200, json={"id": "a/b c", **json.loads(request.content or b"{}")})

    async with mock(handler) as ws:
        await ws.update_employee("a/b c", {"email": "x@y.z"})
        await ws.employee(42)
    assert seen[0].url.raw_path == b"/api/employees/a%2Fb%20c" and seen[0].method == "PUT"
    assert seen[1].url.path == "/api/employees/42"
