"""The retry loop (clients/sender.py) as a caller meets it: `429`s without `Retry-After`
wait the probing's growing steps (at least a second, even just before the window frees),
each wait told to whoever shows progress and logged; a request made after `halt()`, or
waiting for a free slot when the client is halted, is never sent, and one made after the
halt or answered 5xx or 429 after it gives up at once; a URL of a scheme httpx does not
speak fails at once, without retries; a transport error without words is named by its type;
the bound of requests in flight (`apply --parallelism`) below one is refused."""

from __future__ import annotations

import asyncio
import gc
import logging
import warnings
from collections.abc import Callable
from typing import Any

import httpx
import pytest

from reconciler.clients import (
    BasicAuth,
    Halted,
    HelpdeskClient,
    RateLimits,
    RetryPolicy,
    WorkspaceClient,
    activity,
)
from reconciler.clients.base import new_http_client
from reconciler.clients.sender import Sender
from reconciler.errors import TransportFailure
from tests.clients.conftest import Sleeper, client_over
from tests.clients.test_retries import scripted
from tests.sandbox.conftest import FakeClock

pytestmark = pytest.mark.anyio


async def test_429s_in_a_row_as_the_window_frees_wait_growing_probing_steps() -> None:
    clock = FakeClock()
    sleeper = Sleeper()  # the clock stays where the window is about to free
    limited = httpx.Response(429, text="API rate limit exceeded")
    transport, seen = scripted(httpx.Response(200, json=[]), limited, limited, limited, limited)
    retry = RetryPolicy(sleep=sleeper, clock=clock, rate_window=60.0, rate_margin=0.0)
    async with client_over(transport, retry) as client:
        await client.companies()
        clock.advance(59.9)
        assert await client.companies() == []
    assert sleeper.waits == [1.0, 2.0, 4.0, 8.0]
    assert seen.count("GET /api/Companies") == 6


async def test_a_request_made_after_halt_is_never_sent() -> None:
    transport, seen = scripted()
    async with client_over(transport, RetryPolicy(sleep=Sleeper())) as client:
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


def companies_held(release: asyncio.Event, seen: list[str]) -> httpx.MockTransport:
    """Answers every request (the paths in `seen`), the companies' read only once
    `release` is set: it holds the client's one slot meanwhile."""

    async def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request.url.path)
        if request.url.path.endswith("/Companies"):
            await release.wait()
        return httpx.Response(200, json={"UserID": 1} if "Authorization" in seen[-1] else [])

    return httpx.MockTransport(handler)


async def test_a_request_waiting_for_a_free_slot_when_halted_is_never_sent() -> None:
    release = asyncio.Event()
    seen: list[str] = []
    retry = RetryPolicy(sleep=Sleeper())
    async with client_over(companies_held(release, seen), retry, max_concurrency=1) as client:
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


async def test_a_request_made_after_halt_gives_up_at_once_while_every_slot_is_busy() -> None:
    release = asyncio.Event()
    seen: list[str] = []
    retry = RetryPolicy(sleep=Sleeper())
    async with client_over(companies_held(release, seen), retry, max_concurrency=1) as client:
        await client.authenticate()
        first = asyncio.create_task(client.companies())
        while "/api/Companies" not in seen:
            await asyncio.sleep(0)
        client.halt()
        later = asyncio.create_task(client.departments())
        for _ in range(5):
            await asyncio.sleep(0)
        assert later.done()  # not left waiting for the slot the first request holds
        with pytest.raises(Halted) as halted:
            await later
        assert not halted.value.reached
        release.set()
        assert await first == []
    assert seen == ["/api/Authorization", "/api/Companies"]


@pytest.mark.parametrize(
    ("answer", "reached"),
    [
        (httpx.Response(503, json={"message": "busy"}), True),  # it may have been done
        (httpx.Response(429, headers={"Retry-After": "30"}), False),  # refused: not done
    ],
    ids=["5xx", "429"],
)
async def test_a_write_answered_after_halt_gives_up_without_waiting_to_send_it_again(
    answer: httpx.Response, reached: bool
) -> None:
    release = asyncio.Event()
    seen: list[str] = []

    async def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request.url.path)
        if request.url.path.endswith("/Authorization"):
            return httpx.Response(200, json={"UserID": 1})
        await release.wait()
        return answer

    sleeper = Sleeper()
    async with client_over(httpx.MockTransport(handler), RetryPolicy(sleep=sleeper)) as client:
        await client.authenticate()
        update = asyncio.create_task(
            client.request("POST", "UpdateCompany", {"id": 1}, write=True, idempotent=True)
        )
        while "/api/UpdateCompany" not in seen:
            await asyncio.sleep(0)
        client.halt()
        release.set()
        with pytest.raises(Halted) as halted:
            await update
    assert halted.value.reached is reached
    assert sleeper.waits == []
    assert seen == ["/api/Authorization", "/api/UpdateCompany"]


async def test_a_url_of_a_scheme_the_transport_does_not_speak_fails_at_once() -> None:
    sleeper = Sleeper()
    http = new_http_client("ftp://h.example/api/", None, 5.0, max_connections=10)
    sender = Sender(
        http,
        auth_headers=dict,
        retry=RetryPolicy(sleep=sleeper),
        limiter=None,
        max_concurrency=6,
        service="helpdesk",
        deadline=5.0,
    )
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
    async with client_over(transport, RetryPolicy(sleep=Sleeper())) as client:
        await client.companies()
    said = [r.getMessage() for r in caplog.records if r.name == "reconciler.clients"]
    assert said == ["POST /api/Authorization -> 200", "GET /api/Companies -> 200"]


async def test_a_429_as_the_window_frees_waits_the_first_probing_step() -> None:
    clock = FakeClock()
    sleeper = Sleeper(clock)
    limited = httpx.Response(429, text="API rate limit exceeded")
    transport, _ = scripted(httpx.Response(200, json=[]), limited)
    retry = RetryPolicy(sleep=sleeper, clock=clock, rate_window=60.0, rate_margin=0.0)
    async with client_over(transport, retry) as client:
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
    async with client_over(transport, RetryPolicy(sleep=sleeper)) as client:
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
        with pytest.raises(Halted) as halted:
            await client.companies()  # waits an hour for the rate limit
        assert halted.value.reached is False  # halted before it was sent
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
        assert client.calls == 2  # the Authorization and the first call: nothing more sent


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
    async with client_over(httpx.MockTransport(handler), retry) as client:
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
    async with client_over(transport, retry) as client:
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
        assert waiting.cancelled()
        assert client.calls == 2  # the Authorization and the first call: the wait sent nothing


NOWHERE = httpx.MockTransport(lambda request: httpx.Response(599))


def helpdesk(concurrency: int) -> Any:
    return HelpdeskClient(
        "http://h.invalid/helpdesk",
        BasicAuth("admin", "secret"),
        transport=NOWHERE,
        max_concurrency=concurrency,
    )


def workspace(concurrency: int) -> Any:
    return WorkspaceClient(
        "http://w.invalid/workspace", "key", transport=NOWHERE, max_concurrency=concurrency
    )


@pytest.mark.parametrize("make", [helpdesk, workspace], ids=["helpdesk", "workspace"])
@pytest.mark.parametrize("concurrency", [0, -1])
def test_fewer_than_one_request_in_flight_is_refused(
    make: Callable[[int], Any], concurrency: int
) -> None:
    async def build() -> None:
        make(concurrency)

    with pytest.raises(ValueError) as refused:
        asyncio.run(build())
    assert str(refused.value) == "max_concurrency must be at least 1"


@pytest.mark.parametrize("make", [helpdesk, workspace], ids=["helpdesk", "workspace"])
def test_one_request_in_flight_is_accepted(make: Callable[[int], Any]) -> None:
    async def build() -> None:
        async with make(1):
            pass

    asyncio.run(build())


async def test_a_429_a_whole_window_after_the_only_call_waits_a_whole_window() -> None:
    """A call exactly one window old has left the window: a `429` answered then is
    waited out for a whole window, from now, not probed after a second."""
    clock = FakeClock()
    sleeper = Sleeper(clock)

    def handler(request: httpx.Request) -> httpx.Response:
        if request.url.path.endswith("/Authorization"):
            return httpx.Response(200, json={"UserID": 1})
        if not sleeper.waits:
            clock.advance(60.0)  # answered exactly one window after it started
            return httpx.Response(429, text="API rate limit exceeded")
        return httpx.Response(200, json=[])

    retry = RetryPolicy(sleep=sleeper, clock=clock, rate_window=60.0, rate_margin=0.0)
    async with client_over(httpx.MockTransport(handler), retry) as client:
        assert await client.companies() == []
    assert sleeper.waits == [60.0]


async def test_a_transport_error_without_words_is_named_by_its_type_alone() -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        if request.url.path.endswith("/Authorization"):
            return httpx.Response(200, json={"UserID": 1})
        raise httpx.ReadError(" ", request=request)  # a blank text, as some errors have

    retry = RetryPolicy(sleep=Sleeper(), max_attempts=2)
    async with client_over(httpx.MockTransport(handler), retry) as client:
        with pytest.raises(TransportFailure) as caught:
            await client.companies()
    assert str(caught.value) == (
        "GET /api/Companies: no usable answer from h:80 after 2 attempts (last: ReadError)"
    )
