"""The generic call: URLs, parameters, answers, errors, read-only mode, counters."""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest

from reconciler.clients import BasicAuth, HelpdeskClient, RateLimits, WorkspaceClient
from reconciler.errors import ApiError, ReadOnlyViolation, UsageError
from reconciler.sandbox.state import SandboxState
from tests.clients.conftest import api_requests, fast_retry, helpdesk_client, workspace_client

pytestmark = pytest.mark.anyio

USER = {"UserID": 1, "Username": "admin"}


class Recorder:
    """A MockTransport handler that answers Authorization with a user and records the rest."""

    def __init__(self, answer: Any = None, **response: Any) -> None:
        self.requests: list[httpx.Request] = []
        self.answer = answer
        self.response = response

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        if request.url.path.endswith("/Authorization"):
            return httpx.Response(200, json=USER)
        if self.response:
            return httpx.Response(**self.response)
        return httpx.Response(200, json=self.answer if self.answer is not None else [])


def mock_client(base: str, recorder: Recorder, **kwargs: Any) -> HelpdeskClient:
    return HelpdeskClient(
        base,
        BasicAuth("admin", "pw"),
        transport=httpx.MockTransport(recorder),
        limits=RateLimits(general=0, search=0),
        retry=fast_retry(),
        **kwargs,
    )


@pytest.mark.parametrize(
    ("base", "expected"),
    [
        ("https://acme.example.com", "https://acme.example.com/api/Companies"),
        ("https://acme.example.com/", "https://acme.example.com/api/Companies"),
        ("http://host/helpdesk", "http://host/helpdesk/api/Companies"),
        ("http://host/helpdesk//", "http://host/helpdesk/api/Companies"),
        ("http://host:8080/a/b", "http://host:8080/a/b/api/Companies"),
    ],
)
async def test_urls_keep_the_sub_directory(base: str, expected: str) -> None:
    recorder = Recorder()
    async with mock_client(base, recorder) as client:
        await client.request("GET", "/Companies", write=False)
    assert str(recorder.requests[0].url) == expected.replace("Companies", "Authorization")
    assert str(recorder.requests[1].url) == expected


@pytest.mark.parametrize(
    "base",
    ["ftp://host", "host/helpdesk", "https://user:pw@host", "https://host/?x=1", "https://"],
)
def test_unusable_base_urls_are_usage_errors(base: str) -> None:
    with pytest.raises(UsageError) as caught:
        HelpdeskClient(base, BasicAuth("a", "b"))
    assert "pw@" not in str(caught.value)


async def test_get_parameters_go_in_the_query_and_post_parameters_in_the_form() -> None:
    recorder = Recorder(answer={"id": 3})
    async with mock_client("http://h", recorder) as client:
        await client.request(
            "GET",
            "Tickets",
            {"categoryId": [1, 2], "includeCustomFields": True, "mode": None},
            write=False,
        )
        await client.request(
            "POST", "UpdateUser", {"userId": 5, "disabled": False, "notes": "a&b"}, write=True
        )
    get, post = recorder.requests[1], recorder.requests[2]
    assert get.method == "GET" and get.content == b""
    assert get.url.params.get_list("categoryId") == ["1", "2"]
    assert get.url.params["includeCustomFields"] == "true" and "mode" not in get.url.params
    assert post.method == "POST" and not post.url.query
    assert post.headers["content-type"] == "application/x-www-form-urlencoded"
    assert post.content == b"userId=5&disabled=false&notes=a%26b"
    assert post.headers["authorization"].startswith("Basic ")


LATIN = "application/json; charset=iso-8859-1"


@pytest.mark.parametrize(
    ("response", "parsed"),
    [
        ({"json": {"id": 4}}, {"id": 4}),
        ({"json": 17}, 17),
        ({"text": "OK"}, "OK"),
        (
            {"text": "<AutomationRule/>", "headers": {"content-type": "application/xml"}},
            "<AutomationRule/>",
        ),
        ({"content": b'[{"a": 1}]', "headers": {"content-type": "text/html"}}, [{"a": 1}]),
        ({"content": b"{not json", "headers": {"content-type": "application/json"}}, "{not json"),
        ({"content": b"", "headers": {"content-type": "application/json"}}, None),
        # JSON in a charset other than UTF-8 is read in that charset; an empty or broken
        # body so labelled is nothing or its text; text that only starts like JSON stays
        # text, and JSON is read whatever its label; NaN is never taken for a number.
        pytest.param(
            {
                "content": '{"name": "Société"}'.encode("latin-1"),
                "headers": {"content-type": LATIN},
            },
            {"name": "Société"},
            id="latin-1",
        ),
        pytest.param(
            {"content": b"  ", "headers": {"content-type": LATIN}}, None, id="latin-1-empty"
        ),
        pytest.param(
            {"content": b"{broken", "headers": {"content-type": LATIN}},
            "{broken",
            id="latin-1-broken",
        ),
        pytest.param(
            {"content": b"[not json] said the proxy", "headers": {"content-type": "text/plain"}},
            "[not json] said the proxy",
            id="text-like-json",
        ),
        pytest.param(
            {"content": b'{"id": 4}', "headers": {"content-type": "text/html"}},
            {"id": 4},
            id="object-as-html",
        ),
        # NaN is no JSON (Python's reader would take it): the answer stays text.
        pytest.param(
            {"content": b'{"id": NaN}', "headers": {"content-type": LATIN}},
            '{"id": NaN}',
            id="latin-1-nan",
        ),
        pytest.param(
            {"content": b'{"id": NaN}', "headers": {"content-type": "text/html"}},
            '{"id": NaN}',
            id="html-nan",
        ),
    ],
)
async def test_answers_are_parsed_as_json_or_kept_as_text(
    response: dict[str, Any], parsed: Any
) -> None:
    recorder = Recorder(status_code=200, **response)
    async with mock_client("http://h", recorder) as client:
        assert await client.request("GET", "Anything", write=False) == parsed


async def test_client_errors_carry_the_api_message(state: SandboxState) -> None:
    async with helpdesk_client(state) as client:
        with pytest.raises(ApiError) as caught:
            await client.request("POST", "Company", {"name": "  "}, write=True)
        err = caught.value
        assert err.status == 400 and err.method == "POST" and err.path == "/api/Company"
        assert str(err) == "POST /api/Company failed: 400 Parameter 'name' must not be empty"
        with pytest.raises(ApiError) as missing:
            await client.user(999)
        assert str(missing.value) == "GET /api/User failed: 404 User 999 not found"


async def test_redirects_are_not_followed() -> None:
    recorder = Recorder(status_code=302, headers={"location": "https://elsewhere/login"})
    async with mock_client("http://h", recorder) as client:
        with pytest.raises(ApiError) as caught:
            await client.request("GET", "Companies", write=False)
    assert caught.value.status == 302 and str(caught.value) == (
        "GET /api/Companies failed: 302 redirected to https://elsewhere/login: check the "
        "service's URL"
    )
    assert len(recorder.requests) == 2


async def test_a_redirect_without_a_location_says_it_leads_elsewhere() -> None:
    recorder = Recorder(status_code=300)
    async with mock_client("http://h", recorder) as client:
        with pytest.raises(ApiError) as caught:
            await client.request("GET", "Companies", write=False)
    assert str(caught.value) == (
        "GET /api/Companies failed: 300 redirected to elsewhere: check the service's URL"
    )


async def test_an_authorization_answer_that_is_no_user_is_an_error() -> None:
    def login_page(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, html="<html>Sign in</html>")

    async with HelpdeskClient(
        "http://h", BasicAuth("a", "b"), transport=httpx.MockTransport(login_page)
    ) as client:
        with pytest.raises(ApiError) as refused:
            await client.companies()
    assert str(refused.value) == (
        "POST /api/Authorization failed: 200 the answer is not a user object: "
        "is the URL the helpdesk's base (the part before /api)?"
    )


async def test_read_only_client_refuses_writes_and_sends_nothing(state: SandboxState) -> None:
    async with helpdesk_client(state, read_only=True) as client:
        with pytest.raises(ReadOnlyViolation) as post:
            await client.request("POST", "Company", {"name": "Acme"}, write=True)
        assert (
            str(post.value) == "POST /api/Company is a write, attempted through a read-only client"
        )
        with pytest.raises(ReadOnlyViolation) as get:
            await client.request("GET", "DisableRule/1", write=True)  # a write through GET
        assert (
            str(get.value)
            == "GET /api/DisableRule/1 is a write, attempted through a read-only client"
        )
        assert state.requests == type(state.requests)()  # nothing sent, not even Authorization
        assert await client.companies() == []  # reads still work
    assert [r["path"] for r in api_requests(state)] == [
        "/helpdesk/api/Authorization",
        "/helpdesk/api/Companies",
    ]
    assert state.store.rows("companies") == []
    async with workspace_client(state, read_only=True) as ws:
        with pytest.raises(ReadOnlyViolation) as create:
            await ws.create_employee({"email": "a@b.co", "firstName": "A", "lastName": "B"})
        assert (
            str(create.value)
            == "POST /api/employees is a write, attempted through a read-only client"
        )
        with pytest.raises(ReadOnlyViolation) as delete:
            await ws.delete_employee("x")
        assert (
            str(delete.value)
            == "DELETE /api/employees/x is a write, attempted through a read-only client"
        )
        assert await ws.employees() == []
    assert len(api_requests(state, "workspace")) == 1


async def test_call_counters(state: SandboxState) -> None:
    async with helpdesk_client(state) as client:
        await client.companies()
        await client.companies()
        await client.custom_fields(3)
        assert client.calls == 4
        assert client.calls_by_path == {
            "/api/Authorization": 1,
            "/api/Companies": 2,
            "/api/CustomFields": 1,
        }
    async with workspace_client(state) as ws:
        await ws.employees()
        assert ws.calls == 1 and ws.calls_by_path == {"/api/employees": 1}


async def test_workspace_sends_json_bodies() -> None:
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(201, json={"id": "e1", **json.loads(request.content)})

    async with WorkspaceClient(
        "https://ws.example.com/sub/", "key", transport=httpx.MockTransport(handler)
    ) as ws:
        created = await ws.create_employee({"email": "a@b.co"})
    assert created == {"id": "e1", "email": "a@b.co"}
    assert str(seen[0].url) == "https://ws.example.com/sub/api/employees"
    assert seen[0].headers["x-api-key"] == "key"
    assert seen[0].headers["content-type"] == "application/json"
