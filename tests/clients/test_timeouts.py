"""What a client made without a `timeout` (the library's own use, as its docstring shows)
gives each request: 30 s to connect, write and wait for a connection, 120 s for the
answer; the same for both services. A timeout given is what every request carries, and a
request that times out names the bound of the answer, when there is one."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import httpx
import pytest

from reconciler.clients import (
    BasicAuth,
    HelpdeskClient,
    RateLimits,
    RetryPolicy,
    WorkspaceClient,
)
from reconciler.clients.connection import Timeouts
from reconciler.errors import TransportFailure
from tests.clients.conftest import Sleeper, client_over
from tests.clients.test_requests import Recorder

pytestmark = pytest.mark.anyio

DEFAULT = {"connect": 30.0, "read": 120.0, "write": 30.0, "pool": 30.0}


def helpdesk(recorder: Recorder, **kwargs: object) -> HelpdeskClient:
    return HelpdeskClient(
        "http://h",
        BasicAuth("admin", "pw"),
        transport=httpx.MockTransport(recorder),
        limits=RateLimits(general=0, search=0),
        **kwargs,  # type: ignore[arg-type]
    )


def workspace(recorder: Recorder, **kwargs: object) -> WorkspaceClient:
    return WorkspaceClient(
        "http://w",
        "k3y-of-the-workspace",
        transport=httpx.MockTransport(recorder),
        **kwargs,  # type: ignore[arg-type]
    )


@pytest.mark.parametrize(
    ("timeout", "carried"),
    [
        (None, DEFAULT),
        (7.0, {"connect": 7.0, "read": 7.0, "write": 7.0, "pool": 7.0}),
        (httpx.Timeout(60.0, connect=10.0), {**dict.fromkeys(DEFAULT, 60.0), "connect": 10.0}),
    ],
)  # fmt: skip
async def test_each_request_carries_the_clients_timeout(
    timeout: float | httpx.Timeout | None, carried: dict[str, float]
) -> None:
    kwargs = {} if timeout is None else {"timeout": timeout}
    to_helpdesk, to_workspace = Recorder(answer={"id": 3}), Recorder(answer={"id": 4})
    async with helpdesk(to_helpdesk, **kwargs) as hd:
        await hd.request("GET", "Tickets", {}, write=False)
    async with workspace(to_workspace, **kwargs) as ws:
        await ws.request("GET", "employees", write=False)
    requests = [*to_helpdesk.requests, *to_workspace.requests]
    assert len(requests) == 3  # the helpdesk's authorization, its call, the workspace's
    for request in requests:
        assert request.extensions["timeout"] == carried


@pytest.mark.parametrize(("seconds", "connect"), [(60.0, 10.0), (4.0, 4.0)])
def test_a_call_opens_its_connection_within_the_lesser_of_its_timeout_and_10_s(
    seconds: float, connect: float
) -> None:
    timeout = Timeouts(seconds).http()
    assert (timeout.connect, timeout.read, timeout.write, timeout.pool) == (
        connect,
        seconds,
        seconds,
        seconds,
    )


@pytest.mark.parametrize(
    ("timeout", "said"),
    [
        (httpx.Timeout(30.0, read=None), "(--timeout SECONDS)"),  # no bound: none named
        (httpx.Timeout(30.0, read=45.0), "(45 s, --timeout SECONDS)"),
    ],
)
async def test_a_timeout_names_the_bound_of_the_answer_when_there_is_one(
    timeout: httpx.Timeout, said: str
) -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        if request.url.path.endswith("/Authorization"):
            return httpx.Response(200, json={"UserID": 1})
        raise httpx.ReadTimeout("", request=request)

    async with client_over(
        httpx.MockTransport(handler), RetryPolicy(sleep=Sleeper(), max_attempts=2), timeout=timeout
    ) as client:
        with pytest.raises(TransportFailure) as caught:
            await client.companies()
    assert str(caught.value) == (
        "GET /api/Companies: no usable answer from h:80 after 2 attempts (last: ReadTimeout: "
        f"no answer within the timeout {said})"
    )


async def test_an_answer_that_trickles_in_past_the_timeout_is_a_timeout() -> None:
    # Each chunk comes well within the timeout, the whole answer does not: the bound is
    # on the whole answer.
    async def trickle() -> AsyncIterator[bytes]:
        yield b"["
        for _ in range(100):
            await asyncio.sleep(0.02)
            yield b" "
        yield b"]"

    def handler(request: httpx.Request) -> httpx.Response:
        if request.url.path.endswith("/Authorization"):
            return httpx.Response(200, json={"UserID": 1})
        return httpx.Response(200, content=trickle())

    async with client_over(
        httpx.MockTransport(handler), RetryPolicy(sleep=Sleeper(), max_attempts=2), timeout=0.2
    ) as client:
        with pytest.raises(TransportFailure) as caught:
            await client.companies()
    assert str(caught.value) == (
        "GET /api/Companies: no usable answer from h:80 after 2 attempts (last: ReadTimeout: "
        "no answer within the timeout (0.2 s, --timeout SECONDS))"
    )
