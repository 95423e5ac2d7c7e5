"""The clients' cheap request path (reconciler/clients/fastpath.py, issue 25) builds and
sends exactly what httpx's own `AsyncClient.build_request` and `send` would: the same
request line and header fields byte for byte (what the transport writes), the same body
and timeout; the same answer, cookies, redirect, errors and log line. Every row compares
the client's own methods with httpx's, called on the same client."""

from __future__ import annotations

import asyncio
import gzip
import json
import logging
from typing import Any

import httpx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from reconciler.clients import HelpdeskClient
from reconciler.clients.base import _Client, new_http_client
from reconciler.clients.http11 import request_head
from reconciler.clients.urls import FORM
from tests.clients.mockdesk import recording_helpdesk

BASES = [
    "http://h.example/helpdesk/api/",
    "https://Acme.Example.com:8443/a%20b/api/",
    "http://[::1]:8080/api/",
    "http://127.0.0.1:80/api/",
]
AUTH = {"Authorization": "Basic YWRtaW46c2VjcmV0"}
KEY = {"X-API-Key": "ws-key-8e2b7c"}
FORM_HEADERS = {**AUTH, "Content-Type": FORM}

# method, path, content, params, headers, taken cheaply
ROWS: list[tuple[str, str, bytes | None, Any, Any, bool]] = [
    ("GET", "Users", None, None, AUTH, True),
    ("GET", "Users", None, {}, AUTH, True),
    ("GET", "Users", None, {"page": 2, "count": "500"}, AUTH, True),
    ("GET", "Users", None, {"q": "a b/c?d&e=f#g", "none": None, "t": True, "f": False}, AUTH, True),
    ("GET", "Users", None, {"list": ["1", "2"], "tuple": ("x y", "ü"), "empty": []}, AUTH, True),
    ("GET", "Users", None, {"only": []}, AUTH, True),  # a bare "?", as httpx gives it
    ("GET", "Users", None, {"pct": "%41%zz", "emoji": "\U0001f600", "tab": "a\tb"}, AUTH, True),
    ("GET", "Rule/5", None, {"x": "1"}, KEY, True),
    ("GET", "Users", None, {"q": "x" * 9000}, AUTH, True),  # a query past the quick path's
    ("GET", "Users", None, None, None, True),
    ("GET", "Users", None, None, {}, True),
    ("DELETE", "Rule/5", None, None, AUTH, True),
    ("HEAD", "Users", None, None, AUTH, True),
    ("POST", "Company", b"name=Acme+%26+Sons", None, FORM_HEADERS, True),
    ("POST", "Company", b"x" * 70_000, None, FORM_HEADERS, True),
    ("POST", "Company", b"", None, FORM_HEADERS, True),
    ("POST", "Company", None, None, AUTH, True),  # Content-Length: 0, where httpx puts it
    ("PUT", "Company/3", b"name=A", None, FORM_HEADERS, True),
    ("PATCH", "Company/3", None, None, AUTH, True),
    ("DELETE", "Company/3", b"id=3", None, FORM_HEADERS, True),
    ("post", "Company", b"a=1", None, FORM_HEADERS, True),  # httpx upper-cases the method
    ("GET", "Users", None, None, {"accept": "text/xml", "USER-AGENT": "other"}, True),
    ("GET", "Users", None, None, {"Authorization": "Bearer t0k3n", "X-Extra": "a  b "}, True),
    # Shapes httpx builds itself: a caller's framing or Host, parameters not a dict,
    # a text or JSON body, a relative URL.
    ("POST", "Company", b"a=1", None, {**AUTH, "Content-Length": "3"}, False),
    ("GET", "Users", None, None, {"Host": "elsewhere.example"}, False),
    ("GET", "Users", None, httpx.QueryParams({"a": "1"}), AUTH, True),
    ("GET", "Users", None, [("a", "1"), ("a", "2")], AUTH, True),
    ("POST", "Company", "text body", None, FORM_HEADERS, False),
    ("GET", "Users", None, None, [("X-Twice", "1"), ("X-Twice", "2")], False),
]


def client(base: str, **options: Any) -> httpx.AsyncClient:
    transport = httpx.MockTransport(lambda request: httpx.Response(200))
    http = new_http_client(base, transport, httpx.Timeout(30.0, read=120.0), max_connections=10)
    for name, value in options.items():
        setattr(http, name, value)
    return http


def httpx_builds(http: httpx.AsyncClient, *args: Any, **kwargs: Any) -> httpx.Request:
    return httpx.AsyncClient.build_request(http, *args, **kwargs)


def assert_same_request(ours: httpx.Request, theirs: httpx.Request) -> None:
    assert ours.method == theirs.method
    assert ours.url == theirs.url
    assert (str(ours.url), ours.url.raw_path) == (str(theirs.url), theirs.url.raw_path)
    assert ours.headers.raw == theirs.headers.raw
    assert ours.content == theirs.content
    assert ours.extensions == theirs.extensions
    assert type(ours.stream) is type(theirs.stream)
    # What the transport writes: the request line and the header fields, byte for byte.
    method = ours.method.encode("ascii")
    assert request_head(method, ours.url.raw_path, ours.headers.raw) == request_head(
        method, theirs.url.raw_path, theirs.headers.raw
    )


class Counting:
    """Counts the calls of httpx's own build_request while installed."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.calls = 0
        original = httpx.AsyncClient.build_request

        def counted(*args: Any, **kwargs: Any) -> httpx.Request:
            self.calls += 1
            return original(*args, **kwargs)

        monkeypatch.setattr(httpx.AsyncClient, "build_request", counted)


@pytest.mark.parametrize("base", BASES)
@pytest.mark.parametrize(("method", "path", "content", "params", "headers", "cheap"), ROWS)
def test_a_request_is_built_as_httpx_builds_it(
    monkeypatch: pytest.MonkeyPatch,
    base: str,
    method: str,
    path: str,
    content: Any,
    params: Any,
    headers: Any,
    cheap: bool,
) -> None:
    http = client(base)
    url = httpx_builds(http, "GET", path).url  # absolute, as the sender joins it
    theirs = httpx_builds(http, method, url, content=content, params=params, headers=headers)
    first = http.build_request(method, url, content=content, params=params, headers=headers)
    counting = Counting(monkeypatch)
    again = http.build_request(method, url, content=content, params=params, headers=headers)
    assert_same_request(first, theirs)
    assert_same_request(again, theirs)
    assert (counting.calls == 0) is cheap  # the second of a shape: no httpx build at all
    # Each request has its own headers: changing one changes no other.
    again.headers["X-Changed"] = "1"
    assert (
        "X-Changed"
        not in http.build_request(
            method, url, content=content, params=params, headers=headers
        ).headers
    )


def test_the_api_clients_calls_are_built_cheaply(monkeypatch: pytest.MonkeyPatch) -> None:
    """As the clients call it (json=None, timeout and the rest left out): after the first
    call of each shape, httpx builds nothing."""
    seen: list[httpx.Request] = []

    async def calls(client: HelpdeskClient, start: int) -> None:
        for number in range(start, start + 3):
            await client.request("POST", "Company", {"name": f"C {number}"}, write=True)
            await client.request("GET", "Users", {"page": number}, write=False)

    async def run() -> tuple[int, httpx.AsyncClient]:
        async with recording_helpdesk(seen) as client:
            await calls(client, 0)
            counting = Counting(monkeypatch)
            await calls(client, 3)
            return counting.calls, client._http

    built, http = asyncio.run(run())
    assert built == 0
    assert len(seen) == 13
    for request in seen:  # each as httpx builds it, on the same client
        headers = {"Authorization": request.headers["Authorization"]}
        if "Content-Type" in request.headers:  # a form (the authorization sends none)
            headers["Content-Type"] = FORM
        theirs = httpx_builds(
            http,
            request.method,
            request.url.copy_with(query=None),
            content=request.content or None,
            params=dict(request.url.params) or None,
            headers=headers,
        )
        assert_same_request(request, theirs)


def test_a_header_httpx_refuses_is_refused_every_time() -> None:
    http = client(BASES[0])
    url = httpx_builds(http, "GET", "Users").url
    for _ in range(2):
        with pytest.raises(UnicodeEncodeError):
            httpx_builds(http, "GET", url, headers={"X-Extra": "ä"})
        with pytest.raises(UnicodeEncodeError):
            http.build_request("GET", url, headers={"X-Extra": "ä"})


def test_a_relative_url_is_joined_by_httpx() -> None:
    http = client(BASES[0])
    ours = http.build_request("GET", "Users/5", params={"a": "b"}, headers=AUTH)
    assert_same_request(ours, httpx_builds(http, "GET", "Users/5", params={"a": "b"}, headers=AUTH))


@pytest.mark.parametrize(
    "options",
    [
        {"cookies": {"session": "abc"}},
        {"params": {"always": "1"}},
        {"headers": {"X-Default": "on", "Accept": "text/plain"}},
        {"timeout": httpx.Timeout(3.0)},
    ],
    ids=["cookies", "client-params", "client-headers", "client-timeout"],
)
def test_what_the_client_itself_adds_is_merged_as_httpx_merges_it(options: dict[str, Any]) -> None:
    http = client(BASES[0])
    url = httpx_builds(http, "GET", "Users").url
    http.build_request("POST", url, content=b"a=1", headers=FORM_HEADERS)  # a shape seen before
    http.build_request("GET", url, params={"p": "1"}, headers=AUTH)
    for name, value in options.items():
        setattr(http, name, value)
    for args in (("POST", b"a=1", None, FORM_HEADERS), ("GET", None, {"p": "1"}, AUTH)):
        method, content, params, headers = args
        ours = http.build_request(method, url, content=content, params=params, headers=headers)
        theirs = httpx_builds(http, method, url, content=content, params=params, headers=headers)
        assert_same_request(ours, theirs)


def test_a_caller_s_own_options_go_through_httpx() -> None:
    http = client(BASES[0])
    url = httpx_builds(http, "GET", "Users").url
    for options in (
        {"json": {"a": [1, "ü"]}},
        {"data": {"a": "1"}},
        {"timeout": 2.0},
        {"extensions": {"x": 1}},
        {"cookies": {"c": "1"}},
    ):
        ours = http.build_request("POST", url, headers=KEY, **options)
        assert_same_request(ours, httpx_builds(http, "POST", url, headers=KEY, **options))


PARAM_VALUES = st.one_of(
    st.text(max_size=10),
    st.integers(),
    st.booleans(),
    st.none(),
    st.lists(st.text(max_size=5), max_size=3),
)


@settings(max_examples=300, deadline=None)
@given(
    method=st.sampled_from(["GET", "POST", "PUT", "DELETE", "PATCH", "get"]),
    base=st.sampled_from(BASES),
    path=st.sampled_from(["Users", "Rule/5", "a%20b/c", "x;y=z"]),
    params=st.none() | st.dictionaries(st.text(max_size=6), PARAM_VALUES, max_size=4),
    content=st.none() | st.binary(max_size=40),
    value=st.text(st.characters(min_codepoint=0x21, max_codepoint=0x7E), min_size=1, max_size=30),
    form=st.booleans(),
)
def test_any_request_is_built_as_httpx_builds_it(
    method: str,
    base: str,
    path: str,
    params: dict[str, Any] | None,
    content: bytes | None,
    value: str,
    form: bool,
) -> None:
    http = client(base)
    url = httpx_builds(http, "GET", path).url
    headers = {"Authorization": value, **({"Content-Type": FORM} if form else {})}
    for _ in range(2):  # the shape's first request (probed), then one from its template
        ours = http.build_request(method, url, content=content, params=params, headers=headers)
        theirs = httpx_builds(http, method, url, content=content, params=params, headers=headers)
        assert_same_request(ours, theirs)


# -- sending ------------------------------------------------------------------------------

TEXT = {"Content-Type": "text/plain"}
GZIP = {"Content-Encoding": "gzip"}
LENGTH = {"Content-Length": "6", "Content-Type": "application/json"}
ANSWERS: list[tuple[str, Any]] = [
    ("json", lambda r: httpx.Response(200, json={"id": 3, "name": "ü"})),
    ("empty", lambda r: httpx.Response(204)),
    ("text latin-1", lambda r: httpx.Response(200, content="café".encode("latin-1"), headers=TEXT)),
    ("gzip", lambda r: httpx.Response(200, content=gzip.compress(b'{"a": 1}'), headers=GZIP)),
    ("cookie", lambda r: httpx.Response(200, json=[], headers={"Set-Cookie": "s=1; Path=/"})),
    (
        "redirect",
        lambda r: httpx.Response(302, headers={"Location": "https://elsewhere.example/x"}),
    ),
    ("see other", lambda r: httpx.Response(303, headers={"Location": "/api/Other?x=1"})),
    ("error", lambda r: httpx.Response(500, text="boom")),
    # As reconciler's transport answers: the body's bytes, not yet read.
    ("unread", lambda r: httpx.Response(200, headers=LENGTH, stream=httpx.ByteStream(b"[1, 2]"))),
    (
        "unread gzip",
        lambda r: httpx.Response(
            200,
            headers={**GZIP, "Content-Length": "26"},
            stream=httpx.ByteStream(gzip.compress(b"[3]")),
        ),
    ),
    (
        "unread redirect",
        lambda r: httpx.Response(
            307, headers={"Location": "/x", "Content-Length": "0"}, stream=httpx.ByteStream(b"")
        ),
    ),
]


def answered(
    handler: Any, use_httpx: bool, request_args: tuple[Any, ...] = ()
) -> tuple[httpx.Response, httpx.AsyncClient]:
    http = new_http_client(BASES[0], httpx.MockTransport(handler), 30.0, max_connections=10)

    async def run() -> httpx.Response:
        url = httpx_builds(http, "GET", "Users").url
        request = http.build_request("POST", url, content=b"a=1", headers=FORM_HEADERS)
        if use_httpx:
            return await httpx.AsyncClient.send(http, request)
        return await http.send(request)

    return asyncio.run(run()), http


def described(response: httpx.Response, http: httpx.AsyncClient) -> dict[str, Any]:
    following = response.next_request
    return {
        "status": response.status_code,
        "headers": response.headers.raw,
        "content": response.content,
        "text": response.text,
        "encoding": response.encoding,
        "version": response.http_version,
        "reason": response.reason_phrase,
        "history": response.history,
        "closed": response.is_closed,
        "stream closed": response.is_stream_consumed,
        "request": (response.request.method, str(response.request.url)),
        "next": None
        if following is None
        else (following.method, str(following.url), following.headers.raw),
        "cookies": sorted(http.cookies.items()),
        # set when httpx closes a stream it read
        "elapsed": type(getattr(response, "_elapsed", None)).__name__,
    }


@pytest.mark.parametrize(("name", "handler"), ANSWERS, ids=[name for name, _ in ANSWERS])
def test_an_answer_is_what_httpx_s_send_gives(
    monkeypatch: pytest.MonkeyPatch, name: str, handler: Any
) -> None:
    theirs = described(*answered(handler, use_httpx=True))

    async def not_httpx(*args: Any, **kwargs: Any) -> None:
        raise AssertionError("sent through httpx's own send")

    monkeypatch.setattr(httpx.AsyncClient, "send", not_httpx)
    ours = described(*answered(handler, use_httpx=False))
    assert ours == theirs


def test_a_cookie_set_by_an_answer_is_sent_back_as_httpx_sends_it() -> None:
    http = new_http_client(
        BASES[0], httpx.MockTransport(lambda r: httpx.Response(200, headers={"Set-Cookie": "s=1"})),
        30.0, max_connections=10,
    )  # fmt: skip
    url = httpx_builds(http, "GET", "Users").url

    async def run() -> None:
        await http.send(http.build_request("GET", url, headers=AUTH))

    asyncio.run(run())
    ours = http.build_request("GET", url, headers=AUTH)
    assert ours.headers["Cookie"] == "s=1"
    assert_same_request(ours, httpx_builds(http, "GET", url, headers=AUTH))


def test_httpx_s_log_line_is_the_same(caplog: pytest.LogCaptureFixture) -> None:
    handler = ANSWERS[0][1]
    with caplog.at_level(logging.INFO, logger="httpx"):
        answered(handler, use_httpx=True)
        answered(handler, use_httpx=False)
    lines = [record.getMessage() for record in caplog.records if record.name == "httpx"]
    assert len(lines) == 2 and lines[0] == lines[1]
    assert lines[0] == 'HTTP Request: POST http://h.example/helpdesk/api/Users "HTTP/1.1 200 OK"'


@pytest.mark.parametrize("use_httpx", [True, False])
def test_a_failure_names_its_request_and_a_closed_client_sends_nothing(use_httpx: bool) -> None:
    def refuse(request: httpx.Request) -> httpx.Response:
        raise httpx.ConnectError("refused")

    with pytest.raises(httpx.ConnectError) as caught:
        answered(refuse, use_httpx)
    assert str(caught.value.request.url) == "http://h.example/helpdesk/api/Users"

    def bad_location(request: httpx.Request) -> httpx.Response:
        return httpx.Response(301, headers={"Location": "http://h:port/"})

    with pytest.raises(httpx.RemoteProtocolError, match="Invalid URL in location header"):
        answered(bad_location, use_httpx)

    http = new_http_client(BASES[0], httpx.MockTransport(ANSWERS[0][1]), 30.0, max_connections=10)
    request = http.build_request("GET", httpx_builds(http, "GET", "Users").url, headers=AUTH)
    asyncio.run(http.aclose())
    send = httpx.AsyncClient.send if use_httpx else type(http).send
    with pytest.raises(RuntimeError, match="client has been closed"):
        asyncio.run(send(http, request))


def test_hooks_auth_and_redirects_of_a_client_go_through_httpx() -> None:
    seen: list[str] = []

    async def hook(request: httpx.Request) -> None:
        seen.append(request.method)

    def handler(request: httpx.Request) -> httpx.Response:
        if request.url.path.endswith("/next"):
            return httpx.Response(200, json={"followed": request.headers.get("authorization")})
        return httpx.Response(302, headers={"Location": "/helpdesk/api/next"})

    http = new_http_client(BASES[0], httpx.MockTransport(handler), 30.0, max_connections=10)
    http.event_hooks = {"request": [hook], "response": []}
    http.auth = ("user", "pw")
    http.follow_redirects = True
    url = httpx_builds(http, "GET", "Users").url

    async def run() -> httpx.Response:
        return await http.send(http.build_request("GET", url))

    response = asyncio.run(run())
    assert seen == ["GET", "GET"]
    assert json.loads(response.content) == {"followed": "Basic dXNlcjpwdw=="}
    assert len(response.history) == 1


@pytest.mark.parametrize("use_httpx", [True, False])
def test_an_answer_without_a_charset_is_read_in_the_client_s_default_encoding(
    use_httpx: bool,
) -> None:
    def latin(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, content="café".encode("latin-1"), headers=TEXT)

    http = _Client(
        base_url=BASES[0], transport=httpx.MockTransport(latin), default_encoding="latin-1"
    )
    request = http.build_request("GET", httpx_builds(http, "GET", "Users").url, headers=AUTH)
    send = httpx.AsyncClient.send if use_httpx else type(http).send
    response = asyncio.run(send(http, request))
    assert response.text == "café"
