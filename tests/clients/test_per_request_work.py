"""Work done once per client rather than per request (issue 25): the pool sized to the
concurrency, the Basic header encoded once, each path joined to the base URL once."""

from __future__ import annotations

import asyncio
from typing import Any

import httpx
import pytest
from hypothesis import given
from hypothesis import strategies as st

from reconciler.clients import BasicAuth
from reconciler.clients.base import new_http_client
from reconciler.clients.retry import RetryPolicy
from reconciler.clients.sender import _URLS_KEPT, Sender
from reconciler.clients.transport import Transport
from reconciler.clients.urls import FORM, form_body
from tests.clients.mockdesk import recording_helpdesk


def test_the_pool_holds_as_many_connections_as_requests_in_flight(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    for name in (
        "HTTP_PROXY",
        "HTTPS_PROXY",
        "ALL_PROXY",
        "http_proxy",
        "https_proxy",
        "all_proxy",
    ):
        monkeypatch.delenv(name, raising=False)
    http = new_http_client("http://h.invalid/api/", None, 5.0, max_connections=3)
    transport = http._transport  # type: ignore[attr-defined]
    assert isinstance(transport, Transport)
    assert (transport._max, transport._keep) == (3, 3)
    asyncio.run(http.aclose())
    # Behind a proxy from the environment, httpx's own pool, sized the same.
    monkeypatch.setenv("HTTP_PROXY", "http://proxy.invalid:3128")
    http = new_http_client("http://h.invalid/api/", None, 5.0, max_connections=3)
    pool = http._transport._pool  # type: ignore[attr-defined]
    assert (pool._max_connections, pool._max_keepalive_connections) == (3, 3)
    asyncio.run(http.aclose())


def test_the_basic_header_is_the_encoded_credentials() -> None:
    auth = BasicAuth("DOMAIN\\admin", "pä:ss")
    assert auth.headers() == {"Authorization": "Basic RE9NQUlOXGFkbWluOnDDpDpzcw=="}
    assert auth.headers() is not auth.headers()  # a fresh dict: callers may change it


def test_each_path_is_joined_once_and_sent_where_httpx_would_send_it() -> None:
    seen: list[httpx.Request] = []

    async def run() -> Sender:
        async with recording_helpdesk(seen) as client:
            await client.request("POST", "Company", {"name": "A"}, write=True)
            await client.request("POST", "Company", {"name": "B"}, write=True)
            await client.request("GET", "Users", {"page": 2}, write=False)
            await client.request("GET", "/Rule/5/", write=False)
            return client._sender

    sender = asyncio.run(run())
    assert [str(request.url) for request in seen] == [
        "http://h.invalid/helpdesk/api/Authorization",
        "http://h.invalid/helpdesk/api/Company",
        "http://h.invalid/helpdesk/api/Company",
        "http://h.invalid/helpdesk/api/Users?page=2",
        "http://h.invalid/helpdesk/api/Rule/5",
    ]
    assert sender._absolute("Company") is sender._absolute("Company")


def test_the_joined_paths_kept_are_bounded() -> None:
    http = httpx.AsyncClient(base_url="http://h.invalid/api/")
    sender = Sender(http, auth_headers=dict, retry=RetryPolicy())
    for number in range(_URLS_KEPT * 2 + 5):
        url = sender._absolute(f"Rule/{number}")
        assert str(url) == f"http://h.invalid/api/Rule/{number}"
    assert len(sender._urls) <= _URLS_KEPT
    asyncio.run(http.aclose())


FORMS = [
    {"name": "Acme"},
    {"name": "Acme & Sons", "notes": "a=b;c d+e/f?g#h%i", "empty": ""},
    {"categoryId": ["1", "2"], "flag": True, "off": False, "none": None, "n": 5},
    {"mail": "ü@exämple.com", "tab": "a\tb\r\nc", "safe": "A-z_0.9~"},
    {"tuple": ("x y", "z"), "emoji": "\U0001f600"},
]


@pytest.mark.parametrize("data", FORMS)
def test_form_fields_are_encoded_as_httpx_encodes_them(data: dict[str, Any]) -> None:
    reference = httpx.Request("POST", "http://h.invalid/", data=data)
    assert form_body(data) == reference.content
    assert reference.headers["Content-Type"] == FORM


@given(st.dictionaries(st.text(max_size=8), st.text(max_size=12) | st.lists(st.text(max_size=5))))
def test_any_form_is_encoded_as_httpx_encodes_it(data: dict[str, Any]) -> None:
    assert form_body(data) == httpx.Request("POST", "http://h.invalid/", data=data).content
