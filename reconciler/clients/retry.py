"""How long to wait before trying again (DESIGN §5).

Failures (`5xx`, transport errors) back off exponentially with jitter, so that many
clients that failed together do not retry together. A `429` is not a failure: the server
said "later", so the client waits what it was told (`Retry-After`) or, when it was told
nothing, `throttle_wait`: the real service wants minutes, not milliseconds.
"""

from __future__ import annotations

import asyncio
import math
import random
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime

import httpx

Sleep = Callable[[float], Awaitable[None]]

# A `Retry-After: 0` repeated forever must still end within `max_throttle_wait`.
MIN_THROTTLE_WAIT = 1.0


@dataclass(frozen=True)
class RetryPolicy:
    """`max_attempts` counts attempts that failed (`5xx`, transport errors), the first
    included; `429` waits do not count, up to `max_throttle_wait` seconds per request.
    `sleep` and `jitter` (a source of numbers in [0, 1)) are injectable for tests."""

    max_attempts: int = 5
    backoff_base: float = 0.5
    backoff_max: float = 30.0
    throttle_wait: float = 120.0
    max_throttle_wait: float = 900.0
    sleep: Sleep = asyncio.sleep
    jitter: Callable[[], float] = random.random

    def __post_init__(self) -> None:
        if self.max_attempts < 1:
            raise ValueError("max_attempts must be at least 1")

    def backoff(self, failed_attempts: int) -> float:
        """Seconds to wait after the `failed_attempts`-th failure: exponential, capped,
        then "equal jitter" (between half and all of it)."""
        ceiling = min(self.backoff_max, self.backoff_base * 2.0 ** (failed_attempts - 1))
        return ceiling / 2 + ceiling / 2 * float(self.jitter())

    def throttle(self, response: httpx.Response, *, now: datetime | None = None) -> float:
        """Seconds to wait after a `429`: its `Retry-After`, else `throttle_wait`."""
        told = retry_after(response, now=now)
        return max(MIN_THROTTLE_WAIT, self.throttle_wait if told is None else told)


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
