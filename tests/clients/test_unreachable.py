"""A service that cannot be reached is reported within seconds, naming its host and port:
connection refused and name lookups get one quick retry, a failed TLS handshake none;
the whole message for each kind of failure and each service (what failed, where, the
cause, the hint); a 404 on the first call says what the base URL must look like."""

from __future__ import annotations

import asyncio
import socket
import ssl

import httpx
import pytest

from reconciler.clients import BasicAuth, HelpdeskClient, RateLimits, RetryPolicy, WorkspaceClient
from reconciler.clients.answers import host_and_port, unreachable
from reconciler.clients.base import ClientBase
from reconciler.errors import ApiError, TransportFailure
from reconciler.sandbox.process import SandboxProcess
from tests.clients.conftest import Sleeper

pytestmark = pytest.mark.anyio


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def client(url: str, sleeper: Sleeper, **kwargs: object) -> HelpdeskClient:
    return HelpdeskClient(
        url,
        BasicAuth("admin", "pw"),
        limits=RateLimits(general=0, search=0),
        retry=RetryPolicy(sleep=sleeper),
        **kwargs,  # type: ignore[arg-type]
    )


async def test_a_refused_connection_names_host_and_port_after_one_quick_retry() -> None:
    sleeper = Sleeper()
    port = free_port()
    async with client(f"http://127.0.0.1:{port}", sleeper) as helpdesk:
        with pytest.raises(TransportFailure) as caught:
            await helpdesk.authenticate()
    message = str(caught.value)
    assert f"cannot connect to the helpdesk at 127.0.0.1:{port}: connection refused" in message
    assert "check the URL's host and port" in message
    assert sleeper.waits == [0.5]  # one quick retry, not five backed-off attempts


def raising(error: BaseException) -> httpx.MockTransport:
    seen: list[str] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request.url.path)
        raise httpx.ConnectError("injected", request=request) from error

    transport = httpx.MockTransport(handler)
    transport.seen = seen  # type: ignore[attr-defined]
    return transport


async def test_a_name_that_does_not_resolve_is_reported_at_once() -> None:
    sleeper = Sleeper()
    transport = raising(socket.gaierror(-2, "Name or service not known"))
    async with client("https://helpdesk.example.test", sleeper, transport=transport) as helpdesk:
        with pytest.raises(TransportFailure) as failed:
            await helpdesk.authenticate()
    assert str(failed.value) == (
        "cannot connect to the helpdesk at helpdesk.example.test:443: the host name does not "
        "resolve (ConnectError: injected); check the host name in the URL"
    )
    assert len(transport.seen) == 2 and sleeper.waits == [0.5]  # type: ignore[attr-defined]


async def test_a_failed_tls_handshake_is_not_retried() -> None:
    sleeper = Sleeper()
    transport = raising(ssl.SSLCertVerificationError(1, "certificate verify failed"))
    async with client("https://h.example.test:8443/x", sleeper, transport=transport) as helpdesk:
        with pytest.raises(TransportFailure) as failed:
            await helpdesk.authenticate()
    assert str(failed.value) == (
        "cannot connect to the helpdesk at h.example.test:8443: the TLS handshake failed "
        "(ConnectError: injected); check the URL's scheme (https:// for TLS, http:// without) and "
        "the server's certificate"
    )
    assert len(transport.seen) == 1 and sleeper.waits == []  # type: ignore[attr-defined]


def test_https_to_a_plain_http_server_is_a_tls_failure(tmp_path: object) -> None:
    """A real handshake against the sandbox process, which speaks plain HTTP."""
    from pathlib import Path

    sandbox = SandboxProcess(Path(str(tmp_path)) / "s.db").start()
    try:
        port = httpx.URL(sandbox.helpdesk_url).port

        async def scenario() -> None:
            async with client(f"https://127.0.0.1:{port}/helpdesk", Sleeper()) as helpdesk:
                with pytest.raises(TransportFailure, match=f"127.0.0.1:{port}: the TLS"):
                    await helpdesk.authenticate()

        asyncio.run(scenario())
    finally:
        sandbox.stop()


async def test_other_transport_errors_still_back_off_and_name_the_host() -> None:
    sleeper = Sleeper()

    def handler(request: httpx.Request) -> httpx.Response:
        raise httpx.ReadTimeout("injected", request=request)

    helpdesk = client("http://h.example.test", sleeper, transport=httpx.MockTransport(handler))
    async with helpdesk:
        with pytest.raises(TransportFailure) as failed:
            await helpdesk.authenticate()
    assert str(failed.value) == (
        "POST /api/Authorization: no usable answer from h.example.test:80 after 5 attempts (last: "
        "ReadTimeout: no answer within the timeout (120 s, --timeout SECONDS))"
    )
    assert len(sleeper.waits) == 4


def test_the_cause_is_found_in_the_exception_chain() -> None:
    try:
        try:
            raise ConnectionRefusedError(111, "refused")
        except OSError as inner:
            raise httpx.ConnectError("All connection attempts failed") from inner
    except httpx.ConnectError as outer:
        assert unreachable(outer) == "connection refused"
    assert unreachable(httpx.ReadTimeout("slow")) is None
    assert host_and_port(httpx.URL("http://[::1]/x")) == "[::1]:80"


async def test_a_404_on_the_first_call_explains_the_base_url() -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(404, text="Not Found")

    transport = httpx.MockTransport(handler)
    async with client("https://acme.example.test/api", Sleeper(), transport=transport) as hd:
        with pytest.raises(ApiError) as caught:
            await hd.authenticate()
    message = str(caught.value)
    assert "https://acme.example.test/api/api/" in message
    # The status is said once ("failed: 404 Not Found at ..."), not twice.
    assert message.count("404") == 1, message
    assert "HELPDESK_URL (--helpdesk-url) must be the helpdesk's base address" in message
    assert "appends /api itself" in message
    assert "(for example https://acme.jitbit.com or https://host/helpdesk)" in message
    assert message.startswith("POST /api/Authorization failed: 404 Not Found at ")
    workspace = WorkspaceClient("https://ws.example.test/v2", "key", transport=transport)
    async with workspace:
        with pytest.raises(ApiError) as refused:
            await workspace.employees()
    assert str(refused.value) == (
        "GET /api/employees failed: 404 Not Found at https://ws.example.test/v2/api/: no workspace "
        "API there. WORKSPACE_URL (--workspace-url) must be the workspace's base address, the part "
        "before /api (for example https://workspace.example.com); reconciler appends /api itself"
    )


def failing(cause: BaseException) -> httpx.MockTransport:
    def handler(request: httpx.Request) -> httpx.Response:
        raise httpx.ConnectError("injected", request=request) from cause

    return httpx.MockTransport(handler)


def helpdesk(url: str, transport: httpx.MockTransport) -> HelpdeskClient:
    return HelpdeskClient(
        url,
        BasicAuth("admin", "pw"),
        limits=RateLimits(general=0, search=0),
        retry=RetryPolicy(sleep=Sleeper()),
        transport=transport,
    )


def workspace(url: str, transport: httpx.MockTransport) -> WorkspaceClient:
    return WorkspaceClient(url, "key", retry=RetryPolicy(sleep=Sleeper()), transport=transport)


async def first_call(client: ClientBase) -> None:
    async with client:
        if isinstance(client, HelpdeskClient):
            await client.authenticate()
        else:
            assert isinstance(client, WorkspaceClient)
            await client.employees()


@pytest.mark.parametrize(
    ("service", "url", "cause", "message"),
    [
        (
            "helpdesk",
            "https://hd.example.test:8443/x",
            ssl.SSLCertVerificationError(1, "certificate verify failed"),
            "cannot connect to the helpdesk at hd.example.test:8443: the TLS handshake failed "
            "(ConnectError: injected); check the URL's scheme (https:// for TLS, http:// "
            "without) and the server's certificate",
        ),
        (
            "workspace",
            "https://ws.example.test",
            socket.gaierror(-2, "Name or service not known"),
            "cannot connect to the workspace at ws.example.test:443: the host name does not "
            "resolve (ConnectError: injected); check the host name in the URL",
        ),
        (
            "helpdesk",
            "http://[2001:db8::1]/helpdesk",
            ConnectionRefusedError(111, "Connection refused"),
            "cannot connect to the helpdesk at [2001:db8::1]:80: connection refused "
            "(ConnectError: injected); nothing accepts connections there: check the URL's host "
            "and port, and that the service is running",
        ),
    ],
    ids=["tls", "no-such-host", "refused-ipv6"],
)
def test_the_whole_message_of_a_service_that_cannot_be_reached(
    service: str, url: str, cause: BaseException, message: str
) -> None:
    make = helpdesk if service == "helpdesk" else workspace
    with pytest.raises(TransportFailure) as caught:
        asyncio.run(first_call(make(url, failing(cause))))
    assert str(caught.value) == message


def test_the_whole_message_of_a_404_on_the_workspace_s_first_call() -> None:
    transport = httpx.MockTransport(lambda request: httpx.Response(404, text="Not Found"))
    with pytest.raises(ApiError) as caught:
        asyncio.run(first_call(workspace("https://ws.example.test/v2", transport)))
    assert str(caught.value).endswith(
        "Not Found at https://ws.example.test/v2/api/: no workspace API there. WORKSPACE_URL "
        "(--workspace-url) must be the workspace's base address, the part before /api (for "
        "example https://workspace.example.com); reconciler appends /api itself"
    )
