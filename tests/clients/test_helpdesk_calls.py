"""The helpdesk client's typed calls as the service sees them (method, path, query or form)
and what they return (each read of every kind the plan reads, whole request line after
the authorization); the parameters as the API reads them; pages read until a short or
stale one; and the exact refusal of an answer of the wrong shape."""

from __future__ import annotations

import asyncio
import datetime as dt
from collections.abc import Awaitable, Callable
from typing import Any

import httpx
import pytest

from reconciler.clients import BasicAuth, HelpdeskClient, RateLimits, RuleInfo
from reconciler.clients.helpdesk import form_fields, list_of_objects
from reconciler.errors import ApiError, AuthenticationError
from tests.clients.conftest import Sleeper, fast_retry
from tests.clients.test_requests import Recorder, mock_client
from tests.sandbox.conftest import FakeClock

Answer = Callable[[httpx.Request], httpx.Response]


class Desk:
    """A helpdesk on a MockTransport: the authorization answered as an administrator's,
    every other request recorded (`METHOD /path?query [form]`) and answered by `answer`."""

    def __init__(self, answer: Answer) -> None:
        self.answer = answer
        self.seen: list[str] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        if request.url.path == "/api/Authorization":
            return httpx.Response(200, json={"UserID": 1, "IsAdmin": True})
        form = f" [{request.content.decode()}]" if request.content else ""
        self.seen.append(f"{request.method} {request.url.raw_path.decode()}{form}")
        return self.answer(request)

    def run(self, call: Callable[[HelpdeskClient], Awaitable[Any]], **options: Any) -> Any:
        async def main() -> Any:
            async with HelpdeskClient(
                "https://hd.example.com",
                BasicAuth("admin", "pw"),
                limits=RateLimits(general=0, search=0),
                retry=fast_retry(),
                transport=httpx.MockTransport(self),
                **options,
            ) as client:
                return await call(client)

        return asyncio.run(main())


ROWS = [
    (lambda c: c.companies(), "GET /api/Companies"),
    (lambda c: c.departments(), "GET /api/Departments"),
    (lambda c: c.categories(), "GET /api/categories"),
    (lambda c: c.techs_for_category(4), "GET /api/TechsForCategory?id=4"),
    (lambda c: c.custom_fields(3), "GET /api/CustomFields?type=3"),
    (lambda c: c.company_custom_fields(8), "GET /api/CompanyCustomFields?id=8"),
    (lambda c: c.user_custom_fields(9), "GET /api/UserCustomFields?id=9"),
]


@pytest.mark.parametrize(("call", "sent"), ROWS, ids=[r[1].split("?")[0][9:] for r in ROWS])
def test_each_list_is_read_where_the_api_has_it(
    call: Callable[[HelpdeskClient], Awaitable[Any]], sent: str
) -> None:
    desk = Desk(lambda request: httpx.Response(200, json=[{"Name": "x"}]))
    assert desk.run(call, read_only=True) == [{"Name": "x"}]  # a read, allowed read-only
    assert desk.seen == [sent]


def test_a_list_answered_with_null_is_empty() -> None:
    null = httpx.Response(200, content=b"null", headers={"Content-Type": "application/json"})
    desk = Desk(lambda request: null)
    assert desk.run(lambda c: c.companies()) == []


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ({"Name": "x"}, "GET /api/Companies failed: expected a list of objects, got dict"),
        ([{"Name": "x"}, 3], "GET /api/Companies failed: expected a list of objects, got list"),
        ("OK", "GET /api/Companies failed: expected a list of objects, got text: OK"),
        (
            "y" * 81,
            "GET /api/Companies failed: expected a list of objects, got text: " + "y" * 80 + "…",
        ),
        ("z" * 80, "GET /api/Companies failed: expected a list of objects, got text: " + "z" * 80),
    ],
    ids=["object", "not-all-objects", "text", "long-text", "text-at-the-limit"],
)
def test_a_list_of_the_wrong_shape_is_refused_saying_what_came(body: Any, message: str) -> None:
    with pytest.raises(ApiError) as refused:
        list_of_objects(body, "Companies")
    assert str(refused.value) == message


@pytest.mark.parametrize(
    ("body", "outcome"),
    [
        ({"UserID": 5, "Username": "u"}, {"UserID": 5, "Username": "u"}),
        ([{"UserID": 5}], "GET /api/User failed: expected a user object, got list"),
        ("OK", "GET /api/User failed: expected a user object, got text: OK"),
    ],
)
def test_one_user_is_read_by_id(body: Any, outcome: Any) -> None:
    answer = (
        httpx.Response(200, text=body) if isinstance(body, str) else httpx.Response(200, json=body)
    )
    desk = Desk(lambda request: answer)
    if isinstance(outcome, dict):
        assert desk.run(lambda c: c.user(5), read_only=True) == outcome
    else:
        with pytest.raises(ApiError) as refused:
            desk.run(lambda c: c.user(5), read_only=True)
        assert str(refused.value) == outcome
    assert desk.seen == ["GET /api/User?userId=5"]


def test_a_rule_is_read_as_its_xml_text() -> None:
    xml = "<AutomationRule><RuleID>7</RuleID><Name>n</Name><Enabled>true</Enabled></AutomationRule>"
    desk = Desk(lambda request: httpx.Response(200, text=xml))
    assert desk.run(lambda c: c.rule_xml(7), read_only=True) == xml
    assert desk.run(lambda c: c.rule(7), read_only=True) == RuleInfo(7, "n", True)
    assert desk.seen == ["GET /api/Rule/7", "GET /api/Rule/7"]


def pages_of(size: int, total: int, key: str = "UserID") -> Answer:
    def answer(request: httpx.Request) -> httpx.Response:
        page = int(request.url.params["page"])
        first = (page - 1) * size
        return httpx.Response(200, json=[{key: n} for n in range(first, min(first + size, total))])

    return answer


def test_users_are_read_in_pages_of_the_client_s_size_until_a_short_page() -> None:
    desk = Desk(pages_of(2, 5))
    users = desk.run(lambda c: c.users(), users_page_size=2, read_only=True)
    assert users == [{"UserID": n} for n in range(5)]
    assert desk.seen == [f"GET /api/Users?count=2&page={n}" for n in (1, 2, 3)]


def test_a_page_size_given_to_the_call_wins() -> None:
    desk = Desk(pages_of(3, 3))
    assert len(desk.run(lambda c: c.users(page_size=3), users_page_size=2)) == 3
    assert desk.seen == ["GET /api/Users?count=3&page=1", "GET /api/Users?count=3&page=2"]


def test_assets_are_read_50_a_page_with_or_without_the_disabled() -> None:
    desk = Desk(pages_of(50, 50, "ItemID"))
    assert len(desk.run(lambda c: c.assets(True), read_only=True)) == 50
    assert len(desk.run(lambda c: c.assets(False))) == 50
    assert desk.seen == [
        "GET /api/Assets?page=1&includeDisabled=true",
        "GET /api/Assets?page=2&includeDisabled=true",
        "GET /api/Assets?page=1&includeDisabled=false",
        "GET /api/Assets?page=2&includeDisabled=false",
    ]


def test_an_object_that_moved_between_pages_is_kept_once_by_its_id_in_any_case() -> None:
    pages = {
        1: [{"userid": 1, "n": "a"}, {"UserID": 2}],
        2: [{"UserId": 2, "n": "moved"}, {"UserID": None, "x": 1}],
        3: [{"UserID": None, "x": 1}],
    }
    desk = Desk(lambda r: httpx.Response(200, json=pages[int(r.url.params["page"])]))
    users = desk.run(lambda c: c.users(), users_page_size=2)
    assert users == [{"userid": 1, "n": "a"}, {"UserID": 2}, {"UserID": None, "x": 1}]
    assert len(desk.seen) == 3  # page 3 brought nothing new: the end


def test_a_users_page_size_below_one_is_refused() -> None:
    with pytest.raises(ValueError, match="users_page_size must be at least 1"):
        HelpdeskClient("https://hd.example.com", BasicAuth("a", "b"), users_page_size=0)


@pytest.mark.parametrize(
    ("params", "fields"),
    [
        (None, {}),
        ({"a": None, "b": True, "c": False}, {"b": "true", "c": "false"}),
        (
            {"ids": [1, None, 2], "t": (True,), "s": frozenset({"x"})},
            {"ids": ["1", "2"], "t": ["true"], "s": ["x"]},
        ),
        (
            {"d": dt.date(2026, 1, 2), "when": dt.datetime(2026, 1, 2, 3, 4, 5)},
            {"d": "2026-01-02", "when": "2026-01-02T03:04:05"},
        ),
        ({"n": 0, "f": 1.5, "e": ""}, {"n": "0", "f": "1.5", "e": ""}),
    ],
)
def test_parameters_as_the_api_reads_them(params: Any, fields: dict[str, Any]) -> None:
    assert form_fields(params) == fields


@pytest.mark.parametrize(
    ("method", "path", "sent"),
    [
        ("get", "/Users/", "GET /api/Users?page=2&flag=true"),
        ("DELETE", "Asset", "DELETE /api/Asset?page=2&flag=true"),
        ("HEAD", "Asset", "HEAD /api/Asset?page=2&flag=true"),
        ("post", "UpdateUser", "POST /api/UpdateUser [page=2&flag=true]"),
        ("PUT", "x", "PUT /api/x [page=2&flag=true]"),
    ],
)
def test_parameters_go_in_the_query_for_get_head_delete_and_the_form_otherwise(
    method: str, path: str, sent: str
) -> None:
    desk = Desk(lambda request: httpx.Response(200, text="OK"))
    params = {"page": 2, "flag": True, "none": None}
    assert desk.run(lambda c: c.request(method, path, params, write=False)) == "OK"
    assert desk.seen == [sent]


def test_an_authorization_answer_that_is_no_user_is_refused_with_its_status() -> None:
    def answer(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, text="<html>Sign in</html>")

    async def main() -> None:
        async with HelpdeskClient(
            "https://hd.example.com",
            BasicAuth("admin", "pw"),
            limits=RateLimits(general=0, search=0),
            transport=httpx.MockTransport(answer),
        ) as client:
            await client.companies()

    with pytest.raises(ApiError) as refused:
        asyncio.run(main())
    assert str(refused.value) == (
        "POST /api/Authorization failed: 200 the answer is not a user object: is the URL the "
        "helpdesk's base (the part before /api)?"
    )


def test_an_authorization_refused_ends_the_client_before_anything_else_is_sent() -> None:
    sent: list[str] = []

    def answer(request: httpx.Request) -> httpx.Response:
        sent.append(request.url.path)
        return httpx.Response(401, text="bad credentials")

    async def main() -> list[str]:
        messages = []
        async with HelpdeskClient(
            "https://hd.example.com",
            BasicAuth("admin", "pw"),
            limits=RateLimits(general=0, search=0),
            transport=httpx.MockTransport(answer),
        ) as client:
            for call in (client.companies, client.authenticate):
                with pytest.raises(AuthenticationError) as refused:
                    await call()
                messages.append(str(refused.value))
        return messages

    first, second = asyncio.run(main())
    assert first == second and "401" in first
    assert sent == ["/api/Authorization"]


@pytest.mark.parametrize(
    ("path", "search"),
    [
        ("Search", True),
        ("/search/", True),
        ("UserByEmail", True),
        ("userbyemail/x", True),
        ("Users", False),
        ("SearchUsers", False),
        ("Tickets/search", False),
    ],
)
def test_searches_are_counted_in_the_search_bucket(path: str, search: bool) -> None:
    clock = FakeClock()
    sleeper = Sleeper(clock)
    limits = RateLimits(general=0, search=1, window=60.0, margin=0.0, clock=clock, sleep=sleeper)
    desk = Desk(lambda request: httpx.Response(200, json=[]))

    async def twice(client: HelpdeskClient) -> None:
        for _ in range(2):
            await client.request("GET", path, write=False)

    async def main() -> None:
        async with HelpdeskClient(
            "https://hd.example.com",
            BasicAuth("admin", "pw"),
            limits=limits,
            retry=fast_retry(),
            transport=httpx.MockTransport(desk),
        ) as client:
            await twice(client)

    asyncio.run(main())
    assert sleeper.waits == ([60.0] if search else [])


pytestmark = pytest.mark.anyio


Read = Callable[[HelpdeskClient], Awaitable[Any]]


@pytest.mark.parametrize(
    ("read", "sent"),
    [
        (lambda hd: hd.companies(), ["GET /api/Companies"]),
        (lambda hd: hd.departments(), ["GET /api/Departments"]),
        (lambda hd: hd.categories(), ["GET /api/categories"]),
        (lambda hd: hd.techs_for_category(7), ["GET /api/TechsForCategory?id=7"]),
        (lambda hd: hd.custom_fields(4), ["GET /api/CustomFields?type=4"]),
        (lambda hd: hd.company_custom_fields(3), ["GET /api/CompanyCustomFields?id=3"]),
        (lambda hd: hd.user_custom_fields(5), ["GET /api/UserCustomFields?id=5"]),
        (lambda hd: hd.users(page_size=2), ["GET /api/Users?count=2&page=1"]),
        (lambda hd: hd.assets(True), ["GET /api/Assets?page=1&includeDisabled=true"]),
        (lambda hd: hd.assets(False), ["GET /api/Assets?page=1&includeDisabled=false"]),
    ],
)  # fmt: skip
async def test_each_list_read_is_one_request_line(read: Read, sent: list[str]) -> None:
    recorder = Recorder(answer=[])
    async with mock_client("https://acme.example.com/helpdesk", recorder) as hd:
        assert await read(hd) == []
    lines = [f"{r.method} {r.url.raw_path.decode()}" for r in recorder.requests]
    assert lines == ["POST /helpdesk/api/Authorization"] + [
        line.replace(" /api/", " /helpdesk/api/") for line in sent
    ]


async def test_one_user_and_one_rule_are_read_by_their_ids() -> None:
    recorder = Recorder(answer={"UserID": 5, "Email": "ann@example.com"})
    async with mock_client("https://acme.example.com", recorder) as hd:
        assert await hd.user(5) == {"UserID": 5, "Email": "ann@example.com"}
    rule = (
        "<AutomationRule><RuleID>9</RuleID><Name>Route</Name>"
        "<Enabled>true</Enabled></AutomationRule>"
    )
    xml = Recorder(status_code=200, text=rule)
    async with mock_client("https://acme.example.com", xml) as hd:
        assert await hd.rule_xml(9) == rule
        found = await hd.rule(9)
    assert (found.id, found.name, found.enabled) == (9, "Route", True)
    lines = [f"{r.method} {r.url.raw_path.decode()}" for r in recorder.requests + xml.requests]
    assert lines == [
        "POST /api/Authorization",
        "GET /api/User?userId=5",
        "POST /api/Authorization",
        "GET /api/Rule/9",
        "GET /api/Rule/9",
    ]
