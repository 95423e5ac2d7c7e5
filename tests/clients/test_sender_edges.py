"""The retry loop's edges as a caller meets them: `429`s in a row without `Retry-After`
wait the probing's growing steps; a request made after `halt()`, or waiting for a free
slot when the client is halted, is never sent; a URL of a scheme the transport does not
speak fails at once, without retries."""

from __future__ import annotations

import asyncio
import gc
import logging
import warnings

import httpx
import pytest

from reconciler.clients import Halted, RetryPolicy
from reconciler.clients.base import new_http_client
from reconciler.clients.sender import Sender
from reconciler.errors import TransportFailure
from tests.clients.conftest import Sleeper
from tests.clients.test_mutants_sender import client_of
from tests.clients.test_retries import scripted
from tests.sandbox.conftest import FakeClock

pytestmark = pytest.mark.anyio


async def test_429s_in_a_row_as_the_window_frees_wait_growing_probing_steps() -> None:
    clock = FakeClock()
    sleeper = Sleeper()  # the clock stays where the window is about to free
    limited = httpx.Response(429, text="API rate limit exceeded")
    transport, seen = scripted(httpx.Response(200, json=[]), limited, limited, limited, limited)
    retry = RetryPolicy(sleep=sleeper, clock=clock, rate_window=60.0, rate_margin=0.0)
    async with client_of(transport, retry) as client:
        await client.companies()
        clock.advance(59.9)
        assert await client.companies() == []
    assert sleeper.waits == [1.0, 2.0, 4.0, 8.0]
    assert seen.count("GET /api/Companies") == 6


async def test_a_request_made_after_halt_is_never_sent() -> None:
    transport, seen = scripted()
    async with client_of(transport, RetryPolicy(sleep=Sleeper())) as client:
        await client.companies()
        client.halt()
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            for _ in range(2):
                with pytest.raises(Halted) as halted:
                    await client.companies()
                assert not halted.value.reached
            gc.collect()
    assert seen == ["POST /api/Authorization", "GET /api/Companies"]
    assert [str(w.message) for w in caught] == []  # no wait left unawaited


async def test_a_request_waiting_for_a_free_slot_when_halted_is_never_sent() -> None:
    release = asyncio.Event()
    seen: list[str] = []

    async def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request.url.path)
        if request.url.path.endswith("/Companies"):
            await release.wait()
        return httpx.Response(200, json={"UserID": 1} if "Authorization" in seen[-1] else [])

    retry = RetryPolicy(sleep=Sleeper())
    async with client_of(httpx.MockTransport(handler), retry, max_concurrency=1) as client:
        await client.authenticate()
        first = asyncio.create_task(client.companies())
        second = asyncio.create_task(client.departments())
        while "/api/Companies" not in seen:
            await asyncio.sleep(0)
        for _ in range(5):
            await asyncio.sleep(0)
        client.halt()
        release.set()
        assert await first == []  # sent before the halt: its answer is not lost
        with pytest.raises(Halted) as halted:
            await second
        assert not halted.value.reached
    assert seen == ["/api/Authorization", "/api/Companies"]


async def test_a_url_of_a_scheme_the_transport_does_not_speak_fails_at_once() -> None:
    sleeper = Sleeper()
    http = new_http_client("ftp://h.example/api/", None, 5.0, max_connections=10)
    sender = Sender(http, auth_headers=dict, retry=RetryPolicy(sleep=sleeper))
    try:
        with pytest.raises(TransportFailure) as failed:
            await sender.send(
                "GET", "Companies", label="/api/Companies", write=False, idempotent=True
            )
    finally:
        await http.aclose()
    assert str(failed.value) == (
        "GET /api/Companies: Request URL has an unsupported protocol 'ftp://'."
    )
    assert sleeper.waits == []
    assert sender.calls == 1


async def test_each_answer_is_logged_at_debug_with_its_status(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.DEBUG, logger="reconciler.clients")
    transport, _ = scripted(httpx.Response(200, json=[]))
    async with client_of(transport, RetryPolicy(sleep=Sleeper())) as client:
        await client.companies()
    said = [r.getMessage() for r in caplog.records if r.name == "reconciler.clients"]
    assert said == ["POST /api/Authorization -> 200", "GET /api/Companies -> 200"]
