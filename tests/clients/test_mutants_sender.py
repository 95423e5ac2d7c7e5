"""The retry loop's waits for a `429` as a user meets them: a `429` without `Retry-After`
just before the rate window frees still waits the first step of the probing (a second),
not the fraction left; and each `429` wait is told to whoever shows progress (the
terminal's "waiting ... (429)"), with its length, and logged."""

from __future__ import annotations

import asyncio
import logging

import httpx
import pytest

from reconciler.clients import BasicAuth, Halted, HelpdeskClient, RateLimits, RetryPolicy, activity
from tests.clients.conftest import Sleeper
from tests.clients.test_retries import scripted
from tests.sandbox.conftest import FakeClock

pytestmark = pytest.mark.anyio


def client_of(
    transport: httpx.MockTransport, retry: RetryPolicy, max_concurrency: int = 6
) -> HelpdeskClient:
    return HelpdeskClient(
        "http://h",
        BasicAuth("admin", "pw"),
        transport=transport,
        limits=RateLimits(general=0, search=0),
        retry=retry,
        max_concurrency=max_concurrency,
    )


async def test_a_429_as_the_window_frees_waits_the_first_probing_step() -> None:
    clock = FakeClock()
    sleeper = Sleeper(clock)
    limited = httpx.Response(429, text="API rate limit exceeded")
    transport, _ = scripted(httpx.Response(200, json=[]), limited)
    retry = RetryPolicy(sleep=sleeper, clock=clock, rate_window=60.0, rate_margin=0.0)
    async with client_of(transport, retry) as client:
        await client.companies()  # the first call of the window (with the Authorization)
        clock.advance(59.5)
        assert await client.companies() == []  # 429: half a second of the window left
    assert sleeper.waits == [1.0]


class Waits:
    def __init__(self) -> None:
        self.waits: list[tuple[float, str]] = []

    def call_sent(self) -> None:
        pass

    def waiting(self, seconds: float, reason: str) -> None:
        self.waits.append((seconds, reason))


async def test_each_429_wait_is_told_to_the_progress_observer_and_logged(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.INFO, logger="reconciler.clients")
    sleeper = Sleeper()
    limited = httpx.Response(429, headers={"Retry-After": "7"}, text="slow down")
    transport, _ = scripted(limited, limited)
    observer = Waits()
    async with client_of(transport, RetryPolicy(sleep=sleeper)) as client:
        with activity.observing(observer):
            assert await client.companies() == []
    assert observer.waits == [(7.0, activity.THROTTLED)] * 2
    assert sleeper.waits == [7.0, 7.0]
    said = [r.getMessage() for r in caplog.records if "429" in r.getMessage()]
    assert said == ["GET /api/Companies: rate limited (429), waiting 7.0 s"] * 2


def hour_long_rate_limit() -> HelpdeskClient:
    """A client allowed two calls an hour: the Authorization and one more."""

    def handler(request: httpx.Request) -> httpx.Response:
        caller = request.url.path.endswith("/Authorization")
        return httpx.Response(200, json={"UserID": 1} if caller else [])

    return HelpdeskClient(
        "http://h",
        BasicAuth("admin", "pw"),
        transport=httpx.MockTransport(handler),
        limits=RateLimits(general=2, search=2, window=3600.0),
    )


async def test_a_request_halted_while_waiting_leaves_its_task_free_to_go_on() -> None:
    """`halt()` stops a request waiting for the rate limiter by cancelling its wait; the
    `Halted` it raises leaves the caller's task as it was, not still being cancelled
    (a timeout the caller sets afterwards in that task is a timeout, not a cancellation)."""

    client = hour_long_rate_limit()

    async def caller() -> str:
        with pytest.raises(Halted):
            await client.companies()  # waits an hour for the rate limit
        task = asyncio.current_task()
        assert task is not None and task.cancelling() == 0
        try:
            async with asyncio.timeout(0):
                await asyncio.sleep(1)
        except TimeoutError:
            return "timed out"
        return "not timed out"

    async with client:
        await client.companies()  # the Authorization and one call: the budget is spent
        waiting = asyncio.create_task(caller())
        for _ in range(50):
            await asyncio.sleep(0)
        client.halt()
        assert await waiting == "timed out"


async def test_a_429_answered_after_a_whole_window_waits_a_whole_window() -> None:
    """No call of this client is left in the window when the 429 comes (its answer took
    longer than the window): the wait is the whole window, from now."""
    clock = FakeClock()
    sleeper = Sleeper(clock)

    def handler(request: httpx.Request) -> httpx.Response:
        if request.url.path.endswith("/Authorization"):
            return httpx.Response(200, json={"UserID": 1})
        if not sleeper.waits:
            clock.advance(61.0)  # a slow answer
            return httpx.Response(429, text="API rate limit exceeded")
        return httpx.Response(200, json=[])

    retry = RetryPolicy(sleep=sleeper, clock=clock, rate_window=60.0, rate_margin=0.0)
    async with client_of(httpx.MockTransport(handler), retry) as client:
        assert await client.companies() == []
    assert sleeper.waits == [60.0]


async def test_each_retry_after_a_failure_is_logged_with_its_wait_and_attempt(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.INFO, logger="reconciler.clients")
    sleeper = Sleeper()
    busy = httpx.Response(503, json={"message": "busy"})
    transport, _ = scripted(busy, busy)
    retry = RetryPolicy(sleep=sleeper, backoff_base=2.0, jitter=lambda: 0.0, max_attempts=4)
    async with client_of(transport, retry) as client:
        assert await client.companies() == []
    said = [r.getMessage() for r in caplog.records if "retrying" in r.getMessage()]
    assert said == [
        "GET /api/Companies: 503 busy; retrying in 1.0 s (attempt 2 of 4)",
        "GET /api/Companies: 503 busy; retrying in 2.0 s (attempt 3 of 4)",
    ]


async def test_a_request_cancelled_while_waiting_is_cancelled_not_halted() -> None:
    """A wait cancelled by anything but `halt()` (a second Ctrl-C cancels the run, a
    caller's timeout) stays a cancellation."""

    client = hour_long_rate_limit()
    async with client:
        await client.companies()  # the budget is spent
        waiting = asyncio.create_task(client.companies())
        for _ in range(50):
            await asyncio.sleep(0)
        waiting.cancel()
        with pytest.raises(asyncio.CancelledError):
            await waiting
