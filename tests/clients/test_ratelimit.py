"""The client-side rate limiter and the concurrency limit."""

from __future__ import annotations

import asyncio
import time

import httpx
import pytest

from reconciler.clients import BasicAuth, HelpdeskClient, RateLimits, RetryPolicy
from reconciler.clients.ratelimit import SlidingWindow
from reconciler.sandbox import SandboxConfig
from tests.clients.conftest import (
    FakeClock,
    Sleeper,
    api_requests,
    fast_retry,
    helpdesk_client,
    make_state,
)

pytestmark = pytest.mark.anyio


async def test_sliding_window_allows_at_most_n_starts_in_any_window(clock: FakeClock) -> None:
    sleeper = Sleeper(clock)
    window = SlidingWindow(3, 10.0, clock, sleeper)
    starts = []
    for _ in range(8):
        await window.acquire()
        starts.append(clock())
    assert starts == [1000.0] * 3 + [1010.0] * 3 + [1020.0] * 2
    for start in starts:
        assert sum(start <= s < start + 10.0 for s in starts) <= 3


async def test_sliding_window_is_shared_by_concurrent_tasks(clock: FakeClock) -> None:
    sleeper = Sleeper(clock)
    window = SlidingWindow(2, 5.0, clock, sleeper)
    starts: list[float] = []

    async def task() -> None:
        await window.acquire()
        starts.append(clock())

    await asyncio.gather(*(task() for _ in range(7)))
    assert sorted(starts) == [1000.0, 1000.0, 1005.0, 1005.0, 1010.0, 1010.0, 1015.0]


async def test_a_zero_limit_never_waits(clock: FakeClock) -> None:
    sleeper = Sleeper(clock)
    window = SlidingWindow(0, 60.0, clock, sleeper)
    for _ in range(1000):
        await window.acquire()
    assert sleeper.waits == []


def test_rate_limits_are_validated() -> None:
    with pytest.raises(ValueError):
        RateLimits(general=-1)
    with pytest.raises(ValueError):
        RateLimits(window=0)
    assert RateLimits().limit("search") == 60 and RateLimits().limit("general") == 90


async def test_the_client_never_meets_a_429_from_a_server_with_the_same_limits(
    clock: FakeClock,
) -> None:
    state = make_state(SandboxConfig(rate_limit=5, search_rate_limit=2), clock)
    limiter_sleeps = Sleeper(clock)
    retry_sleeps = Sleeper(clock)
    client = helpdesk_client(
        state,
        limits=RateLimits(general=5, search=2, window=60.0, clock=clock, sleep=limiter_sleeps),
        retry=fast_retry(retry_sleeps),
    )
    started = clock()
    async with client:
        await asyncio.gather(
            *(client.companies() for _ in range(20)),
            *(
                client.request("GET", "UserByEmail", {"email": "admin@example.com"}, write=False)
                for _ in range(6)
            ),
        )
    log = api_requests(state)
    assert len(log) == 27
    assert {r["status"] for r in log} == {200}
    assert retry_sleeps.waits == []  # nothing was throttled or retried
    # 21 general calls at 5 a minute: the last starts in the fifth window.
    assert clock() - started >= 4 * 60.0


async def test_the_client_never_meets_a_429_on_a_real_clock() -> None:
    window = 0.3
    state = make_state(
        SandboxConfig(rate_limit=4, search_rate_limit=4, rate_window=window), time.monotonic
    )
    retry_sleeps = Sleeper()
    started = time.monotonic()
    # A margin of 10 % (30 ms) absorbs the scheduling jitter of a loaded test machine.
    limits = RateLimits(general=4, search=4, window=window, margin=0.1)
    async with helpdesk_client(state, limits=limits, retry=fast_retry(retry_sleeps)) as client:
        await asyncio.gather(*(client.departments() for _ in range(11)))
    assert {r["status"] for r in api_requests(state)} == {200}
    assert retry_sleeps.waits == []
    assert time.monotonic() - started >= 2 * window


async def test_search_and_general_buckets_are_separate(clock: FakeClock) -> None:
    state = make_state(SandboxConfig(rate_limit=0, search_rate_limit=0), clock)
    limiter_sleeps = Sleeper(clock)
    limits = RateLimits(
        general=0, search=1, window=60.0, margin=0.0, clock=clock, sleep=limiter_sleeps
    )
    async with helpdesk_client(state, limits=limits) as client:
        await client.users()
        await client.request("GET", "UserByEmail", {"email": "tina@example.com"}, write=False)
        await client.users()
        assert limiter_sleeps.waits == []
        await client.request("GET", "userbyemail", {"email": "tina@example.com"}, write=False)
        assert limiter_sleeps.waits == [60.0]
        await client.request("GET", "Users", write=False, bucket="search")
        assert limiter_sleeps.waits == [60.0, 60.0]


async def test_the_margin_widens_the_window(clock: FakeClock) -> None:
    limiter_sleeps = Sleeper(clock)
    state = make_state(SandboxConfig(rate_limit=0, search_rate_limit=0), clock)
    limits = RateLimits(general=1, window=60.0, margin=0.02, clock=clock, sleep=limiter_sleeps)
    async with helpdesk_client(state, limits=limits) as client:
        await client.companies()  # the Authorization took the first slot
    assert limiter_sleeps.waits == [pytest.approx(61.2)]


async def test_concurrency_is_bounded() -> None:
    in_flight = 0
    most = 0

    class SlowTransport(httpx.AsyncBaseTransport):
        async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
            nonlocal in_flight, most
            in_flight += 1
            most = max(most, in_flight)
            await asyncio.sleep(0.005)
            in_flight -= 1
            if request.url.path.endswith("/Authorization"):
                return httpx.Response(200, json={"UserID": 1})
            return httpx.Response(200, json=[])

    async with HelpdeskClient(
        "http://h",
        BasicAuth("a", "b"),
        transport=SlowTransport(),
        limits=RateLimits(general=0, search=0),
        retry=RetryPolicy(),
        max_concurrency=3,
    ) as client:
        await asyncio.gather(*(client.companies() for _ in range(30)))
        assert client.calls == 31
    assert most == 3
