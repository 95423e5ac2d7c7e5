"""Small behaviours of the clients no other test reaches: a `Retry-After` date without a
zone is UTC; where the system (not the environment) names proxies, or the environment
cannot be read as bytes, httpx's transport is used; the fast path's self-check refuses
a query builder that differs from httpx's; a streamed body of a sync iterator is
refused by an async client as httpx refuses it; an empty secret is false."""

from __future__ import annotations

import asyncio
import os
import urllib.request
from datetime import UTC, datetime

import httpx
import pytest

from reconciler.clients import fastpath
from reconciler.clients.auth import Secret
from reconciler.clients.base import new_http_client
from reconciler.clients.proxies import env_proxy_applies
from reconciler.clients.retry import retry_after
from reconciler.clients.transport import Transport


@pytest.mark.parametrize(
    ("header", "seconds"),
    [
        ("Thu, 26 Nov 2026 08:00:10 -0000", 10.0),  # no zone: read as UTC
        ("Thu, 26 Nov 2026 08:00:10 GMT", 10.0),
        ("Thu, 26 Nov 2026 09:00:10 +0100", 10.0),
        ("Thu, 26 Nov 2026 07:59:00 GMT", 0.0),  # past
    ],
)
def test_retry_after_as_an_http_date_is_seconds_from_now(header: str, seconds: float) -> None:
    now = datetime(2026, 11, 26, 8, 0, 0, tzinfo=UTC)
    response = httpx.Response(429, headers={"Retry-After": header})
    assert retry_after(response, now=now) == seconds


@pytest.fixture
def no_proxy_variables(monkeypatch: pytest.MonkeyPatch) -> pytest.MonkeyPatch:
    for name in list(os.environ):
        if name.lower().endswith("_proxy"):
            monkeypatch.delenv(name)
    return monkeypatch


def test_proxies_the_system_names_outside_the_environment_apply(
    no_proxy_variables: pytest.MonkeyPatch,
) -> None:
    def system_proxies() -> dict[str, str]:  # macOS's or Windows' settings
        return {"https": "http://proxy.corp.invalid:3128"}

    no_proxy_variables.setattr(urllib.request, "getproxies", system_proxies)
    assert env_proxy_applies(httpx.URL("https://acme.example.com/api/"))
    assert not env_proxy_applies(httpx.URL("http://acme.example.com/api/"))


def test_without_a_bytes_environment_the_proxy_variables_are_read_all_the_same(
    no_proxy_variables: pytest.MonkeyPatch,
) -> None:
    no_proxy_variables.setattr(os, "supports_bytes_environ", False)
    no_proxy_variables.setenv("HTTPS_PROXY", "http://proxy.corp.invalid:3128")
    assert env_proxy_applies(httpx.URL("https://acme.example.com/api/"))


def test_the_fast_path_self_check_refuses_a_query_builder_unlike_httpx(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    assert fastpath._replaces_queries_as_httpx()

    def other(url: httpx.URL, query: str) -> httpx.URL:
        return httpx.URL("http://elsewhere.example/")

    monkeypatch.setattr(fastpath, "_replace_query", other)
    assert not fastpath._replaces_queries_as_httpx()

    def failing(url: httpx.URL, query: str) -> httpx.URL:
        raise AttributeError("URL kept otherwise")

    monkeypatch.setattr(fastpath, "_replace_query", failing)
    assert not fastpath._replaces_queries_as_httpx()


def test_a_sync_body_is_refused_by_the_async_client_in_httpx_words() -> None:
    async def main() -> None:
        limits = httpx.Limits(max_connections=1)
        transport = Transport(lambda: pytest.fail("no TLS here"), limits)
        http = new_http_client("http://127.0.0.1:9/api/", transport, 5.0, max_connections=10)
        try:
            request = http.build_request("POST", "Company", content=iter([b"name=Acme"]))
            with pytest.raises(RuntimeError) as refused:
                await http.send(request)
        finally:
            await http.aclose()
        assert str(refused.value) == (
            "Attempted to send an sync request with an AsyncClient instance."
        )

    asyncio.run(main())


def test_a_closed_client_refuses_to_send_in_httpx_words() -> None:
    async def main() -> None:
        limits = httpx.Limits(max_connections=1)
        transport = Transport(lambda: pytest.fail("no TLS here"), limits)
        http = new_http_client("http://127.0.0.1:9/api/", transport, 5.0, max_connections=10)
        request = http.build_request("GET", "Company")
        await http.aclose()
        with pytest.raises(RuntimeError) as refused:
            await http.send(request)
        assert str(refused.value) == "Cannot send a request, as the client has been closed."

    asyncio.run(main())


def test_a_secret_is_true_only_when_not_empty() -> None:
    assert not Secret("")
    assert Secret("pw")
    assert f"{Secret('pw')}" == str(Secret("pw")) == repr(Secret("pw")) == "***"
