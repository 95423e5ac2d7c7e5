"""The whole message of a service that cannot be reached, for each kind of failure and
each service: what failed, where (host and port, the scheme's default port shown), the
cause as the transport gave it, and the hint for that kind; and the whole message of a
404 on a service's first call (the base URL is wrong)."""

from __future__ import annotations

import asyncio
import socket
import ssl

import httpx
import pytest

from reconciler.clients import BasicAuth, HelpdeskClient, RateLimits, RetryPolicy, WorkspaceClient
from reconciler.clients.base import ClientBase
from reconciler.errors import ApiError, TransportFailure
from tests.clients.conftest import Sleeper


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
