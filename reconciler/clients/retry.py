"""How long to wait before trying again (DESIGN §5).

Failures (`5xx`, transport errors) back off exponentially with jitter, so that many
clients that failed together do not retry together. A `429` is not a failure: the server
said "later", so the client waits what it was told (`Retry-After`). When it was told
nothing, it waits until the rate window can have freed: the helpdesk counts calls in a
window of one minute, and every call counted against this client's budget that this
client made itself started no earlier than its first call in the last minute, so the
window can have freed one minute after that call (other clients' calls, which it cannot
see, may hold it longer). If the answer is still `429`, the next wait is measured the same
way from the calls then in the window, and grows (1, 2, 4 ... seconds, at most a quarter
of the window), so that probing stays bounded however the calls fall; all the waits of
one request together stay within `max_throttle_wait`.
"""

from __future__ import annotations

import asyncio
import math
import random
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime

import httpx

from reconciler.clients.ratelimit import RATE_MARGIN, RATE_WINDOW, Clock, Sleep

# A `Retry-After: 0` repeated forever must still end within `max_throttle_wait`.
MIN_THROTTLE_WAIT = 1.0


@dataclass(frozen=True)
class RetryPolicy:
    """`max_attempts` counts attempts that failed (`5xx`, transport errors), the first
    included; `429` waits do not count, up to `max_throttle_wait` seconds per request.
    `rate_window` is the helpdesk's rate window (one minute, DESIGN §5), widened by
    `rate_margin` as the client's limiter widens it (ratelimit.py). `sleep`, `clock` and
    `jitter` (a source of numbers in [0, 1)) are injectable for tests. `retry_for` bounds
    a failing call in time: no attempt starts once that many seconds have passed since
    its first failure (with a per-attempt timeout T and `retry_for` T, a server that never
    answers costs about 2 T, not `max_attempts` T)."""

    max_attempts: int = 5
    retry_for: float = math.inf
    backoff_base: float = 0.5
    backoff_max: float = 30.0
    rate_window: float = RATE_WINDOW
    rate_margin: float = RATE_MARGIN
    max_throttle_wait: float = 900.0
    sleep: Sleep = asyncio.sleep
    clock: Clock = time.monotonic
    jitter: Callable[[], float] = random.random

    def __post_init__(self) -> None:
        if self.max_attempts < 1:
            raise ValueError("max_attempts must be at least 1")

    def backoff(self, failed_attempts: int) -> float:
        """Seconds to wait after the `failed_attempts`-th failure: exponential, capped,
        then "equal jitter" (between half and all of it)."""
        ceiling = min(self.backoff_max, self.backoff_base * 2.0 ** (failed_attempts - 1))
        return ceiling / 2 + ceiling / 2 * float(self.jitter())

    def throttle(
        self,
        response: httpx.Response,
        *,
        window_age: float,
        probe: int,
    ) -> float:
        """Seconds to wait after a `429`: its `Retry-After`; else until the rate window
        can have freed, `window_age` being how long ago this client's first call in the
        last window started, but at least the `probe`-th step of the bounded probing
        (the `probe`-th `429` in a row of one request)."""
        told = retry_after(response)
        if told is not None:
            return max(MIN_THROTTLE_WAIT, told)
        until_freed = self.rate_window * (1.0 + self.rate_margin) - window_age
        step = min(MIN_THROTTLE_WAIT * 2.0 ** (probe - 1), self.rate_window / 4)
        return max(step, until_freed)


def retry_after(response: httpx.Response, *, now: datetime | None = None) -> float | None:
    """`Retry-After` in seconds (delta-seconds or an HTTP date); None when absent or unreadable."""
    raw = response.headers.get("retry-after", "").strip()
    if not raw:
        return None
    try:
        seconds = float(raw)
    except ValueError:
        pass
    else:
        return max(0.0, seconds) if math.isfinite(seconds) else None
    try:
        when = parsedate_to_datetime(raw)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return max(0.0, (when - (now or datetime.now(UTC))).total_seconds())
