"""The clients' transport as the clients use it: against the sandbox (a real uvicorn
process on 127.0.0.1), over TLS with a local certificate authority, and handing over to
httpx's own transport where a proxy from the environment applies."""

from __future__ import annotations

import asyncio
import os
import ssl
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
import trustme

from reconciler.clients import BasicAuth, HelpdeskClient, RateLimits, RetryPolicy
from reconciler.clients.base import new_http_client
from reconciler.clients.transport import Transport, env_proxy_applies
from reconciler.clients.unreachable import TLS, unreachable
from reconciler.errors import OutcomeUnknown
from reconciler.sandbox.process import SandboxProcess
from tests.clients.rawserver import RawServer

PROXIES = ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "NO_PROXY")


@pytest.fixture(autouse=True)
def _no_proxy(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in PROXIES:
        monkeypatch.delenv(name, raising=False)
        monkeypatch.delenv(name.lower(), raising=False)


@pytest.fixture
def sandbox(tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[SandboxProcess]:
    faults = getattr(request, "param", "")
    args = ["--rate-limit", "0", *(["--faults", faults] if faults else [])]
    with SandboxProcess(tmp_path / "sandbox.db", *args) as process:
        yield process


def client_of(sandbox: SandboxProcess, concurrency: int = 3) -> HelpdeskClient:
    return HelpdeskClient(
        sandbox.helpdesk_url,
        BasicAuth(*sandbox.auth),
        limits=RateLimits(general=0, search=0),
        retry=RetryPolicy(max_attempts=2, backoff_base=0.0),
        max_concurrency=concurrency,
    )


def test_the_clients_talk_to_the_sandbox_over_kept_alive_connections(
    sandbox: SandboxProcess,
) -> None:
    async def run() -> None:
        async with client_of(sandbox, concurrency=3) as client:
            transport = client._http._transport
            assert isinstance(transport, Transport)
            names = [f"Kept {n}" for n in range(12)]
            await asyncio.gather(
                *(client.request("POST", "Company", {"name": n}, write=True) for n in names)
            )
            listed = {c["Name"] for c in await client.companies()}
            assert set(names) <= listed
            assert 1 <= len(transport._open) <= 3  # the pool's size: the concurrency
            assert client.calls == 1 + 12 + 1  # Authorization, the creates, the list
        assert not transport._open

    asyncio.run(run())


@pytest.mark.parametrize("sandbox", ["drop=1.0"], indirect=True)
def test_a_write_whose_connection_dropped_is_not_sent_again(sandbox: SandboxProcess) -> None:
    # The sandbox carries the create out, then drops the connection without answering:
    # the request was sent, so neither the transport nor the sender sends it again.
    async def run() -> None:
        async with client_of(sandbox) as client:
            with pytest.raises(OutcomeUnknown, match="may or may not have happened"):
                await client.request(
                    "POST", "Company", {"name": "Dropped"}, write=True, idempotent=False
                )
            names = [c["Name"] for c in await client.companies()]  # reads are not dropped
            assert names.count("Dropped") == 1
            assert client.calls_by_path["/api/Company"] == 1

    asyncio.run(run())


@pytest.fixture(scope="module")
def authority() -> trustme.CA:
    return trustme.CA()


def _tls_run(authority: trustme.CA, host: str, names: tuple[str, ...]) -> httpx.Response:
    served = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    authority.issue_cert(*names).configure_cert(served)
    trusted = ssl.create_default_context()
    authority.configure_trust(trusted)

    async def run() -> httpx.Response:
        async with RawServer(tls=served) as server:
            limits = httpx.Limits(max_connections=2, max_keepalive_connections=2)
            async with httpx.AsyncClient(transport=Transport(trusted, limits)) as client:
                url = f"https://{host}:{server.port}/api/x"
                assert (await client.get(url)).status_code == 200
                second = await client.get(url)
                assert server.connections == 1  # kept alive over TLS too
                return second

    return asyncio.run(run())


def test_tls_checks_the_certificate_against_the_host_name(authority: trustme.CA) -> None:
    assert _tls_run(authority, "localhost", ("localhost",)).json() == {"echo": 0}
    with pytest.raises(httpx.ConnectError) as caught:
        _tls_run(authority, "127.0.0.1", ("other.example",))
    assert unreachable(caught.value) == TLS
    assert isinstance(caught.value.__cause__, ssl.SSLCertVerificationError)


def test_an_untrusted_certificate_is_a_tls_connect_error(authority: trustme.CA) -> None:
    stranger = trustme.CA()
    served = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    stranger.issue_cert("localhost").configure_cert(served)

    async def run() -> None:
        async with RawServer(tls=served) as server:
            limits = httpx.Limits(max_connections=1, max_keepalive_connections=1)
            transport = Transport(ssl.create_default_context(), limits)
            async with httpx.AsyncClient(transport=transport) as client:
                with pytest.raises(httpx.ConnectError) as caught:
                    await client.get(f"https://localhost:{server.port}/api/x")
            assert unreachable(caught.value) == TLS

    asyncio.run(run())


@pytest.mark.parametrize(
    ("variables", "url", "ours"),
    [
        ({}, "https://acme.example.com/api/", True),
        ({"HTTPS_PROXY": "http://proxy.invalid:3128"}, "https://acme.example.com/api/", False),
        ({"https_proxy": "proxy.invalid:3128"}, "https://acme.example.com/api/", False),
        ({"HTTPS_PROXY": "http://proxy.invalid:3128"}, "http://acme.example.com/api/", True),
        ({"HTTP_PROXY": "http://proxy.invalid:3128"}, "http://127.0.0.1:8080/api/", False),
        ({"ALL_PROXY": "http://proxy.invalid:3128"}, "http://acme.example.com/api/", False),
        ({"ALL_PROXY": "http://p.invalid:3128", "NO_PROXY": "*"}, "http://a.example/api/", True),
        # NO_PROXY naming the host: httpx's transport applies it (and goes direct).
        ({"HTTP_PROXY": "http://p.invalid:1", "NO_PROXY": "a.example"}, "http://a.example/", False),
        # Any case; a name only containing `_proxy` names none; an empty one is unset; a
        # CGI request (REQUEST_METHOD) ignores HTTP_PROXY, as urllib does.
        ({"Http_Proxy": "http://p.invalid:1"}, "http://a.example/", False),
        ({"MY_PROXY_HOST": "p.invalid", "PROXY": "p.invalid"}, "http://a.example/", True),
        ({"HTTP_PROXY": ""}, "http://a.example/", True),
        ({"HTTP_PROXY": "http://p.invalid:1", "REQUEST_METHOD": "GET"}, "http://a.ex/", True),
    ],
)
def test_where_a_proxy_may_apply_httpx_transport_is_used(
    monkeypatch: pytest.MonkeyPatch, variables: dict[str, str], url: str, ours: bool
) -> None:
    for name in list(os.environ):
        if name.lower().endswith("_proxy"):
            monkeypatch.delenv(name)
    for name, value in variables.items():
        monkeypatch.setenv(name, value)
    assert env_proxy_applies(httpx.URL(url)) is not ours
    http = new_http_client(url, None, 5.0, max_connections=2)
    try:
        assert isinstance(http._transport, Transport) is ours
        proxied = http._transport_for_url(httpx.URL(url + "x")) is not http._transport
        if "NO_PROXY" not in variables:
            assert proxied is not ours  # httpx routes this URL through the proxy
    finally:
        asyncio.run(http.aclose())
