"""The client-side rate limiter and the concurrency limit."""

from __future__ import annotations

import asyncio
import logging
import time

import httpx
import pytest

from reconciler.clients import BasicAuth, HelpdeskClient, RateLimits, RetryPolicy
from reconciler.clients.ratelimit import RateLimiter, SlidingWindow, ThrottleGate
from reconciler.sandbox.config import SandboxConfig
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
    with pytest.raises(ValueError) as negative:
        RateLimits(general=-1)
    assert str(negative.value) == "rate limits must be 0 (off) or more"
    with pytest.raises(ValueError) as no_window:
        RateLimits(window=0)
    assert str(no_window.value) == (
        "the rate-limit window must be positive and the margin not negative"
    )
    assert RateLimits().limit("search") == 60 and RateLimits().limit("general") == 90


@pytest.mark.parametrize(
    ("given", "message"),
    [
        ({"general": -1}, "rate limits must be 0 (off) or more"),
        ({"search": -1}, "rate limits must be 0 (off) or more"),
        ({"window": 0}, "the rate-limit window must be positive and the margin not negative"),
        ({"window": -0.5}, "the rate-limit window must be positive and the margin not negative"),
        ({"margin": -0.01}, "the rate-limit window must be positive and the margin not negative"),
        # The edges that are valid: limits off, a window under a second, no margin.
        ({"general": 0, "search": 0}, None),
        ({"window": 0.3}, None),
        ({"window": 1.0, "margin": 0.0}, None),
    ],
)
def test_the_edges_of_valid_rate_limits(given: dict[str, float], message: str | None) -> None:
    if message is None:
        limits = RateLimits(**given)  # type: ignore[arg-type]
        assert all(getattr(limits, name) == value for name, value in given.items())
        return
    with pytest.raises(ValueError) as raised:
        RateLimits(**given)  # type: ignore[arg-type]
    assert str(raised.value) == message


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


async def test_acquire_returns_the_seconds_it_waited(clock: FakeClock) -> None:
    sleeper = Sleeper(clock)
    window = SlidingWindow(2, 10.0, clock, sleeper)
    assert [await window.acquire() for _ in range(2)] == [0.0, 0.0]
    clock.advance(3.0)
    # Full: the oldest start (t=1000) leaves the window at 1010, 7 s from now.
    assert await window.acquire() == 7.0
    assert await window.acquire() == 0.0  # that wait freed both slots taken at 1000
    assert await window.acquire() == 10.0
    assert sleeper.waits == [7.0, 10.0]


async def test_a_sleep_that_wakes_a_moment_early_is_slept_out_and_counted_whole(
    clock: FakeClock,
) -> None:
    """The event loop may wake a sleep up to its clock's resolution early: the window is
    then still full for that moment, which is slept too, and the wait returned is the
    whole of it, not its last moment."""
    asked: list[float] = []

    async def wakes_early_once(seconds: float) -> None:
        asked.append(seconds)
        clock.advance(seconds - 1e-6 if len(asked) == 1 else seconds)

    window = SlidingWindow(1, 10.0, clock, wakes_early_once)
    assert await window.acquire() == 0.0
    assert await window.acquire() == pytest.approx(10.0)
    assert clock() == 1010.0
    assert asked == [10.0, pytest.approx(1e-6)]


async def test_a_start_exactly_one_window_old_has_left_it(clock: FakeClock) -> None:
    sleeper = Sleeper(clock)
    window = SlidingWindow(1, 10.0, clock, sleeper)
    await window.acquire()
    clock.advance(10.0)
    assert await window.acquire() == 0.0
    clock.advance(9.5)
    assert await window.acquire() == 0.5


async def test_the_limiter_returns_the_wait_of_the_bucket_widened_by_the_margin(
    clock: FakeClock,
) -> None:
    sleeper = Sleeper(clock)
    limiter = RateLimiter(
        RateLimits(general=1, search=2, window=50.0, margin=0.1, clock=clock, sleep=sleeper)
    )
    assert await limiter.acquire("general") == 0.0
    assert await limiter.acquire("anything else") == pytest.approx(55.0)
    assert [await limiter.acquire("search") for _ in range(3)] == [0.0, 0.0, pytest.approx(55.0)]


async def test_the_client_adds_up_the_seconds_it_waited_for_the_rate_limit(
    clock: FakeClock, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="reconciler.clients")
    state = make_state(SandboxConfig(rate_limit=0, search_rate_limit=0), clock)
    limiter_sleeps = Sleeper(clock)
    limits = RateLimits(
        general=2, search=0, window=60.0, margin=0.0, clock=clock, sleep=limiter_sleeps
    )
    async with helpdesk_client(state, limits=limits) as client:
        assert client.rate_limited_seconds == 0.0
        await client.companies()  # with the Authorization: two calls, no wait
        assert client.rate_limited_seconds == 0.0
        clock.advance(15.0)
        await client.companies()
        await client.companies()
        await client.companies()
        assert limiter_sleeps.waits == [45.0, 60.0]  # 1015 -> 1060, then 1060 -> 1120
        assert client.rate_limited_seconds == pytest.approx(105.0)
    # --verbose shows each wait: which call waited, how long, for which bucket.
    waits = [r.getMessage() for r in caplog.records if "for the rate limit" in r.getMessage()]
    assert waits == [
        "/api/Companies: waited 45.0 s for the rate limit (general)",
        "/api/Companies: waited 60.0 s for the rate limit (general)",
    ]


async def test_a_zero_limit_returns_no_wait(clock: FakeClock) -> None:
    limiter = RateLimiter(RateLimits(general=0, search=0, clock=clock, sleep=Sleeper(clock)))
    assert [await limiter.acquire(bucket) for bucket in ("general", "search")] == [0.0, 0.0]
    assert limiter.limits.general == 0


def test_invalid_rate_limits_say_what_is_wrong() -> None:
    with pytest.raises(ValueError, match="rate limits must be 0 \\(off\\) or more"):
        RateLimits(search=-1)
    with pytest.raises(ValueError, match="window must be positive and the margin not negative"):
        RateLimits(margin=-0.1)
    RateLimits(general=0, search=0, margin=0.0)  # the edges are allowed


async def test_the_throttle_gate_opens_when_the_last_closer_leaves() -> None:
    gate = ThrottleGate()
    await asyncio.wait_for(gate.wait_open(), 1)  # open from the start
    passed: list[str] = []

    async def sender() -> None:
        await gate.wait_open()
        passed.append("sent")

    async with gate.closed():
        async with gate.closed():
            task = asyncio.create_task(sender())
            await asyncio.sleep(0)
        await asyncio.sleep(0)
        assert passed == []  # one closer is still waiting out its 429
    await asyncio.wait_for(task, 1)
    assert passed == ["sent"]
