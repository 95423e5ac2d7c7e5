"""The workspace client: CRUD against the sandbox; each call as it goes on the wire (request
line, body, what it gives back; an opaque id quoted as one path segment); what it shows of
itself; lists in every shape (items, next link, total) and what an answer that is no page
is called; writes refused by a read-only client before anything is sent; a refused key not
sent again; a 404 once the service answered; next links to another origin or back to a
page; errors and retries."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

import httpx
import pytest

from reconciler.clients import BasicAuth, BearerAuth, HelpdeskClient, RetryPolicy, WorkspaceClient
from reconciler.clients.base import ClientBase
from reconciler.clients.workspace import list_page
from reconciler.errors import (
    ApiError,
    AuthenticationError,
    OutcomeUnknown,
    ReadOnlyViolation,
    TransportFailure,
)
from reconciler.sandbox.config import FaultConfig
from reconciler.sandbox.state import SandboxState
from tests.clients.conftest import Sleeper, api_requests, fast_retry, workspace_client
from tests.clients.test_requests import Recorder

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
        assert str(duplicate.value) == (
            "POST /api/employees failed: 409 An employee with email ann@example.com already exists"
        )
        with pytest.raises(ApiError) as invalid:
            await ws.create_employee({"email": "x@example.com", "shoeSize": 44})
        assert str(invalid.value) == (
            "POST /api/employees failed: 422 unknown field(s): shoeSize; firstName is required and "
            "must be a non-empty string; lastName is required and must be a non-empty string"
        )
        with pytest.raises(ApiError) as missing:
            await ws.employee("nope")
        assert str(missing.value) == "GET /api/employees/nope failed: 404 Employee nope not found"
        assert missing.value.path == "/api/employees/nope"


async def test_workspace_reads_are_retried_and_creates_are_not(state: SandboxState) -> None:
    sleeper = Sleeper()
    async with workspace_client(state, sleeper=sleeper) as ws:
        faults = FaultConfig(error_rate=1.0)
        state.config.faults = faults
        state.faults.configure(faults)
        with pytest.raises(TransportFailure) as failed:
            await ws.employees()
        assert str(failed.value) == (
            "GET /api/employees: no usable answer from sandbox.test:80 after 5 attempts (last: "
            "500 Internal server error (injected))"
        )
        assert len(sleeper.waits) == 4
        with pytest.raises(OutcomeUnknown) as answered:
            await ws.create_employee(ANN)
        assert str(answered.value) == (
            "POST /api/employees failed: 500 Internal server error (injected); the write may "
            "or may not have happened: re-read before trying again"
        )
        dropped = FaultConfig(drop_rate=1.0)
        state.faults.configure(dropped)
        with pytest.raises(OutcomeUnknown) as lost:
            await ws.create_employee(BOB)
        assert str(lost.value) == (
            "POST /api/employees failed: no answer (RemoteProtocolError: server disconnected "
            "(ConnectionDropped)); the write may or may not have happened: re-read before "
            "trying again"
        )
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


async def test_a_next_link_that_loops_is_refused() -> None:
    service = Pages(
        (BASE, {"data": [E1], "next": BASE + "?p=2"}),
        (BASE + "?p=2", {"data": [E2], "next": BASE}),
    )
    async with mock(service) as ws:
        with pytest.raises(ApiError) as refused:
            await ws.employees()
    assert str(refused.value) == "GET /api/employees failed: the list's next link repeats a page"


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ({"error": "x"}, "GET /api/employees failed: the answer holds no list of items"),
        ("text", "GET /api/employees failed: expected a list, got str"),
        ([1, 2], "GET /api/employees failed: the list holds items that are not objects"),
        ({"data": [1]}, "GET /api/employees failed: the list holds items that are not objects"),
    ],
)
async def test_answers_that_are_no_list_are_refused(body: Any, message: str) -> None:
    service = Pages((BASE, body))
    async with mock(service) as ws:
        with pytest.raises(ApiError) as refused:
            await ws.employees()
    assert str(refused.value) == message


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


Call = Callable[[WorkspaceClient], Awaitable[Any]]
OPAQUE_ANN = {"id": "e/1 2", "email": "ann@example.com"}


@pytest.mark.parametrize(
    ("call", "sent", "body", "given"),
    [
        (lambda ws: ws.employees(), "GET /people/api/employees", None, [OPAQUE_ANN]),
        (lambda ws: ws.employee("e/1 2"), "GET /people/api/employees/e%2F1%202", None, OPAQUE_ANN),
        (lambda ws: ws.employee(7), "GET /people/api/employees/7", None, OPAQUE_ANN),
        (lambda ws: ws.create_employee({"email": "ann@example.com"}),
         "POST /people/api/employees", {"email": "ann@example.com"}, OPAQUE_ANN),
        (lambda ws: ws.update_employee("e/1 2", {"email": "ann@example.com"}),
         "PUT /people/api/employees/e%2F1%202", {"email": "ann@example.com"}, OPAQUE_ANN),
        (lambda ws: ws.delete_employee(7), "DELETE /people/api/employees/7", None, None),
    ],
)  # fmt: skip
async def test_each_call_on_the_wire_and_what_it_gives(
    call: Call, sent: str, body: Any, given: Any
) -> None:
    answer: Any = (
        {"items": [OPAQUE_ANN]} if sent.endswith("employees") and body is None else OPAQUE_ANN
    )
    recorder = Recorder(answer=answer)
    transport = httpx.MockTransport(recorder)
    async with WorkspaceClient("https://ws.example.com/people", "k3y", transport=transport) as ws:
        result = await call(ws)
    assert result == given
    [request] = recorder.requests
    assert f"{request.method} {request.url.raw_path.decode()}" == sent
    assert request.headers["x-api-key"] == "k3y"
    assert (json.loads(request.content) if request.content else None) == body


T = TypeVar("T")


def helpdesk_basic(read_only: bool) -> ClientBase:
    return HelpdeskClient(
        "https://hd.example.com/helpdesk", BasicAuth("admin", "pw-1"), read_only=read_only
    )


def helpdesk_bearer(read_only: bool) -> ClientBase:
    return HelpdeskClient("https://hd.example.com", BearerAuth("tok-2"), read_only=read_only)


def workspace(read_only: bool) -> ClientBase:
    return WorkspaceClient("https://ws.example.com/", "key-3", read_only=read_only)


@pytest.mark.parametrize(
    ("make", "read_only", "shown"),
    [
        (
            helpdesk_basic,
            True,
            "HelpdeskClient('https://hd.example.com/helpdesk/api/', "
            "BasicAuth(username='admin', password=***), read_only)",
        ),
        (
            helpdesk_bearer,
            False,
            "HelpdeskClient('https://hd.example.com/api/', BearerAuth(token=***))",
        ),
        (workspace, True, "WorkspaceClient('https://ws.example.com/api/', ApiKey(***), read_only)"),
        (workspace, False, "WorkspaceClient('https://ws.example.com/api/', ApiKey(***))"),
    ],
    ids=["helpdesk-read-only", "helpdesk", "workspace-read-only", "workspace"],
)
def test_a_client_shows_its_address_its_masked_auth_and_read_only(
    make: Callable[[bool], ClientBase], read_only: bool, shown: str
) -> None:
    async def main() -> str:
        async with make(read_only) as client:
            return repr(client)

    assert asyncio.run(main()) == shown


L = "/api/employees"
A, B = {"id": "a"}, {"id": 2}


@pytest.mark.parametrize(
    ("body", "page"),
    [
        ([A, B], ([A, B], None, None)),
        ([], ([], None, None)),
        ({"data": [A], "items": [B]}, ([A], None, None)),  # the first list key wins
        ({"data": "x", "items": [B]}, ([B], None, None)),  # ... that holds a list
        ({"records": [A], "value": [B]}, ([A], None, None)),
        ({"value": [A]}, ([A], None, None)),
        ({"employees": [A], "totalCount": 9}, ([A], None, 9)),
        ({"results": [A], "total_count": 4}, ([A], None, 4)),
        ({"data": [A], "total": True, "meta": {"total": 3}}, ([A], None, 3)),  # a bool is no total
        ({"data": [A], "total": "7"}, ([A], None, None)),
        ({"data": [A], "total": 2, "meta": {"total": 3}}, ([A], None, 2)),
        ({"data": [A], "meta": "not an object", "next": " /p2 "}, ([A], "/p2", None)),
        ({"data": [A], "next": "  ", "links": {"next": "/p3"}}, ([A], "/p3", None)),
        ({"data": [A], "next": {"href": "/p4"}}, ([A], "/p4", None)),
        ({"data": [A], "next": {"url": "/p5"}, "meta": {"next": "/p6"}}, ([A], "/p6", None)),
        ({"data": [A], "_links": {"next": "/p7"}}, ([A], "/p7", None)),
        (
            {
                "data": [A],
                "links": [{"rel": "prev", "href": "/p0"}, {"rel": "next", "href": "/p8"}],
            },
            ([A], "/p8", None),
        ),
        ({"data": [A], "links": ["next", {"rel": "next"}]}, ([A], None, None)),
        ({"data": [A], "_links": ["/p9"]}, ([A], None, None)),
    ],
)
def test_one_page_of_a_list(body: object, page: tuple[object, ...]) -> None:
    assert list_page(body, L) == page


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ("text", "GET /api/employees failed: expected a list, got str"),
        (None, "GET /api/employees failed: expected a list, got NoneType"),
        ({"error": "x"}, "GET /api/employees failed: the answer holds no list of items"),
        ([A, 1], "GET /api/employees failed: the list holds items that are not objects"),
        ({"data": [[A]]}, "GET /api/employees failed: the list holds items that are not objects"),
    ],
)
def test_what_an_answer_that_is_no_page_is_called(body: object, message: str) -> None:
    with pytest.raises(ApiError) as refused:
        list_page(body, L)
    assert str(refused.value) == message


class Service:
    """A workspace on a MockTransport: each request recorded, answered by `answer`."""

    def __init__(self, answer: Callable[[httpx.Request], httpx.Response]) -> None:
        self.answer = answer
        self.seen: list[str] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.seen.append(f"{request.method} {request.url.raw_path.decode()}")
        return self.answer(request)

    def client(self, read_only: bool = False) -> WorkspaceClient:
        return WorkspaceClient(
            "https://ws.example.com/",
            "key",
            read_only=read_only,
            transport=httpx.MockTransport(self),
            retry=fast_retry(),
        )


def run(coroutine: Awaitable[T]) -> T:
    async def main() -> T:
        return await coroutine

    return asyncio.run(main())


@pytest.mark.parametrize(
    ("body", "found"),
    [
        ({"data": {"id": "e1", "email": "a@x.io"}}, {"id": "e1", "email": "a@x.io"}),
        ({"id": "e1", "data": {"id": "other"}}, {"id": "e1", "data": {"id": "other"}}),
        ({"data": ["x"], "name": "n"}, {"data": ["x"], "name": "n"}),
    ],
)
def test_one_employee_is_read_unwrapped(body: object, found: object) -> None:
    service = Service(lambda request: httpx.Response(200, json=body))

    async def main() -> object:
        # Read-only, as `plan` reads: a read is never refused as a write.
        async with service.client(read_only=True) as ws:
            return await ws.employee("a b/c")

    assert run(main()) == found
    assert service.seen == ["GET /api/employees/a%20b%2Fc"]


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ([{"id": 1}], "GET /api/employees/7 failed: expected an object, got list"),
        ("OK", "GET /api/employees/7 failed: expected an object, got str"),
    ],
)
def test_an_employee_that_is_no_object_is_refused(body: object, message: str) -> None:
    service = Service(lambda request: httpx.Response(200, json=body))

    async def main() -> None:
        async with service.client() as ws:
            await ws.employee(7)

    with pytest.raises(ApiError) as refused:
        run(main())
    assert str(refused.value) == message


def test_a_create_answers_the_created_employee_and_an_empty_answer_is_none() -> None:
    def answer(request: httpx.Request) -> httpx.Response:
        if request.method == "POST":
            return httpx.Response(201, json={"data": {"id": "n1", **json.loads(request.content)}})
        if request.method == "DELETE":
            return httpx.Response(204)
        return httpx.Response(200, json={"ok": True})

    service = Service(answer)

    async def main() -> list[object]:
        async with service.client() as ws:
            return [
                await ws.create_employee({"email": "n@x.io"}),
                await ws.update_employee("n1", {"email": "m@x.io"}),
                await ws.delete_employee("n1"),
                await ws.request("GET", "/employees/", write=False),
            ]

    assert run(main()) == [{"id": "n1", "email": "n@x.io"}, {"ok": True}, None, {"ok": True}]
    assert service.seen == [
        "POST /api/employees",
        "PUT /api/employees/n1",
        "DELETE /api/employees/n1",
        "GET /api/employees",
    ]


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (
            lambda ws: ws.create_employee({}),
            "POST /api/employees is a write, attempted through a read-only client",
        ),
        (
            lambda ws: ws.delete_employee(3),
            "DELETE /api/employees/3 is a write, attempted through a read-only client",
        ),
        (
            lambda ws: ws.request("patch", "x/1?y=2", write=True),
            "PATCH /api/x/1 is a write, attempted through a read-only client",
        ),
    ],
)
def test_a_read_only_client_refuses_every_write_before_sending(
    call: Callable[[WorkspaceClient], Awaitable[object]], message: str
) -> None:
    service = Service(lambda request: httpx.Response(200, json=[]))

    async def main() -> None:
        async with service.client(read_only=True) as ws:
            assert await ws.employees() == []  # reads go through
            await call(ws)

    with pytest.raises(ReadOnlyViolation) as refused:
        run(main())
    assert str(refused.value) == message
    assert service.seen == ["GET /api/employees"]


def test_a_refused_key_is_not_sent_again() -> None:
    service = Service(lambda request: httpx.Response(401, json={"error": "bad key"}))

    async def main() -> list[str]:
        messages = []
        async with service.client() as ws:
            for _ in range(2):
                with pytest.raises(AuthenticationError) as refused:
                    await ws.employee(1)
                messages.append(str(refused.value))
        return messages

    first, second = run(main())
    assert first == second and "401" in first and "bad key" in first
    assert service.seen == ["GET /api/employees/1"]


def test_a_404_once_the_service_answered_is_the_service_s_own() -> None:
    def answer(request: httpx.Request) -> httpx.Response:
        if request.url.path.endswith("/employees"):
            return httpx.Response(200, json=[A])
        return httpx.Response(404, json={"error": "no such employee"})

    service = Service(answer)

    async def main() -> None:
        async with service.client() as ws:
            await ws.employees()
            await ws.employee("gone")

    with pytest.raises(ApiError) as refused:
        run(main())
    assert str(refused.value) == "GET /api/employees/gone failed: 404 no such employee"


def test_a_short_list_names_its_path_and_both_counts() -> None:
    service = Service(lambda request: httpx.Response(200, json={"data": [A, B], "total": 3}))

    async def main() -> None:
        async with service.client() as ws:
            await ws.list_all("/employees/")

    with pytest.raises(ApiError) as refused:
        run(main())
    assert str(refused.value) == (
        "GET /api/employees failed: the list says it has 3 items but gave 2 and no next link"
    )


@pytest.mark.parametrize(
    ("second", "message"),
    [
        (
            "https://other.example.com/api/employees?p=2",
            "GET /api/employees failed: the list's next link leads to another host",
        ),
        (
            "https://ws.example.com:8443/api/employees?p=2",
            "GET /api/employees failed: the list's next link leads to another host",
        ),
        (
            "http://ws.example.com/api/employees?p=2",
            "GET /api/employees failed: the list's next link leads to another host",
        ),
        ("/api/employees", "GET /api/employees failed: the list's next link repeats a page"),
    ],
)
def test_a_next_link_elsewhere_or_back_is_refused_naming_it(second: str, message: str) -> None:
    def answer(request: httpx.Request) -> httpx.Response:
        if request.url.query:
            return httpx.Response(200, json={"data": [B], "next": second})
        return httpx.Response(200, json={"data": [A], "next": "/api/employees?p=2"})

    service = Service(answer)

    async def main() -> None:
        async with service.client() as ws:
            await ws.employees()

    with pytest.raises(ApiError) as refused:
        run(main())
    assert str(refused.value) == message
    assert service.seen == ["GET /api/employees", "GET /api/employees?p=2"]  # nothing sent there


def test_a_page_with_no_items_ends_the_list_whatever_its_next_link() -> None:
    def answer(request: httpx.Request) -> httpx.Response:
        if request.url.query:
            return httpx.Response(200, json={"data": [], "next": "/api/employees?p=3"})
        return httpx.Response(200, json={"data": [A], "next": "/api/employees?p=2"})

    service = Service(answer)

    async def main() -> list[dict[str, object]]:
        async with service.client() as ws:
            return await ws.employees()

    assert run(main()) == [A]
    assert service.seen == ["GET /api/employees", "GET /api/employees?p=2"]
