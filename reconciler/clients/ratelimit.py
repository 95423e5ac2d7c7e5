"""Client-side rate limiting (DESIGN §5): stay inside the helpdesk's budget instead of
running into its `429`s.

`RateLimits` is the configuration; `RateLimiter` keeps one sliding window per bucket
("general" and "search"): at most N calls start in any window of `window` seconds. It is
shared by every task using a client, so a `gather` of a hundred reads still starts them at
the allowed pace. `ThrottleGate` pauses every task of a client while one of them waits out
a `429`, so that the others do not keep hitting the limit in the meantime.
"""

from __future__ import annotations

import asyncio
import time
from collections import deque
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass

from reconciler.clients import activity

Clock = Callable[[], float]
Sleep = Callable[[float], Awaitable[None]]

GENERAL = "general"
SEARCH = "search"
# The helpdesk counts calls per minute (DESIGN §5); the client widens that window by a
# margin (`RateLimits.margin`). The 429 waits (`RetryPolicy`) measure the same window.
RATE_WINDOW = 60.0
RATE_MARGIN = 0.02


@dataclass(frozen=True)
class RateLimits:
    """Calls allowed per `window` seconds: `general` for most endpoints, `search` for
    `Search` and `UserByEmail`. `0` switches a bucket's limit off (self-hosted installs
    with `DisableRateLimit`).

    `margin` widens the window by that share: the server counts a call when it arrives,
    the client when it leaves, and the two clocks see different gaps when the network's
    delay varies. 2 % of a minute (1.2 s) absorbs that at a 2 % cost in throughput.
    `clock` and `sleep` are injectable so tests can run on a fake clock.
    """

    general: int = 90
    search: int = 60
    window: float = RATE_WINDOW
    margin: float = RATE_MARGIN
    clock: Clock = time.monotonic
    sleep: Sleep = asyncio.sleep

    def __post_init__(self) -> None:
        if self.general < 0 or self.search < 0:
            raise ValueError("rate limits must be 0 (off) or more")
        if self.window <= 0 or self.margin < 0:
            raise ValueError("the rate-limit window must be positive and the margin not negative")

    def limit(self, bucket: str) -> int:
        return self.search if bucket == SEARCH else self.general


class SlidingWindow:
    """At most `limit` starts in any `window` seconds; `acquire` waits for a free slot."""

    def __init__(self, limit: int, window: float, clock: Clock, sleep: Sleep) -> None:
        self.limit = limit
        self.window = window
        self._clock = clock
        self._sleep = sleep
        self._starts: deque[float] = deque()
        # FIFO: asyncio.Lock wakes waiters in order, so no task starves.
        self._lock = asyncio.Lock()

    async def acquire(self) -> float:
        """Wait for a slot and take it; return the seconds waited."""
        if self.limit <= 0:
            return 0.0
        waited = 0.0
        async with self._lock:
            while True:
                now = self._clock()
                while self._starts and self._starts[0] <= now - self.window:
                    self._starts.popleft()
                if len(self._starts) < self.limit:
                    self._starts.append(now)
                    return waited
                wait = self._starts[0] + self.window - now
                waited += wait
                activity.waiting(wait, activity.RATE_LIMIT)  # for the progress display
                await self._sleep(wait)


class RateLimiter:
    """One `SlidingWindow` per bucket of a `RateLimits`."""

    def __init__(self, limits: RateLimits) -> None:
        self.limits = limits
        window = limits.window * (1.0 + limits.margin)
        self._windows = {
            bucket: SlidingWindow(limits.limit(bucket), window, limits.clock, limits.sleep)
            for bucket in (GENERAL, SEARCH)
        }

    def limited(self, bucket: str) -> bool:
        """False when `bucket`'s limit is off (0): `acquire` would return 0 at once."""
        return self._windows[bucket if bucket == SEARCH else GENERAL].limit > 0

    async def acquire(self, bucket: str) -> float:
        """Wait until a call in `bucket` may start; return the seconds waited."""
        return await self._windows[bucket if bucket == SEARCH else GENERAL].acquire()


class ThrottleGate:
    """Closed while any task waits out a `429`; every task passes `wait_open` before it
    sends, so one `429` pauses the whole client rather than one task of it."""

    def __init__(self) -> None:
        self._open = asyncio.Event()
        self._open.set()
        self._closers = 0

    @property
    def is_open(self) -> bool:
        return self._open.is_set()

    async def wait_open(self) -> None:
        await self._open.wait()

    @asynccontextmanager
    async def closed(self) -> AsyncIterator[None]:
        self._closers += 1
        self._open.clear()
        try:
            yield
        finally:
            self._closers -= 1
            if not self._closers:
                self._open.set()
