"""A wait for the client's own rate limit is told to whoever shows progress, with its
length and its reason (the progress line says "waiting for the rate limit"); a start
that needs no wait tells nothing."""

from __future__ import annotations

import asyncio

from reconciler.clients import activity
from reconciler.clients.ratelimit import SlidingWindow
from tests.clients.conftest import Sleeper
from tests.sandbox.conftest import FakeClock


class Watcher:
    def __init__(self) -> None:
        self.events: list[tuple[str, float, str]] = []

    def call_sent(self) -> None:
        self.events.append(("sent", 0.0, ""))

    def waiting(self, seconds: float, reason: str) -> None:
        self.events.append(("waiting", seconds, reason))


def test_a_rate_limit_wait_is_told_with_its_length_and_reason() -> None:
    clock = FakeClock()
    window = SlidingWindow(2, 60.0, clock, Sleeper(clock))
    watcher = Watcher()

    async def main() -> list[float]:
        with activity.observing(watcher):
            waited = [await window.acquire() for _ in range(2)]
            clock.advance(15.0)
            waited.append(await window.acquire())
        return waited

    assert asyncio.run(main()) == [0.0, 0.0, 45.0]
    assert watcher.events == [("waiting", 45.0, activity.RATE_LIMIT)]
