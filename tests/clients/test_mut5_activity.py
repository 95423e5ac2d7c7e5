"""What the clients tell the progress display (clients/activity.py), as the display shows
it: a wait for the rate limit under one second is shown as it starts; a wait of nothing
is not; a request on the wire is followed until it ends, however it ends; with no
observer, or an observer that does not follow answers, nothing is followed."""

from __future__ import annotations

import asyncio

import pytest

from reconciler.clients import activity
from reconciler.clients.ratelimit import SlidingWindow
from reconciler.terminal.progress import Tracker


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_a_wait_under_a_second_is_shown_as_it_starts() -> None:
    clock = Clock()
    tracker = Tracker(clock)
    shown: list[str] = []

    async def sleep(seconds: float) -> None:
        shown.append(tracker.wait_text())  # what the display shows during the wait
        clock.now += seconds

    async def scenario() -> list[float]:
        window = SlidingWindow(1, 60.0, clock, sleep)
        with activity.observing(tracker):
            first = await window.acquire()
            clock.now += 59.1  # the window frees in 0.9 s
            second = await window.acquire()
            clock.now += 60.0  # the window is free: no wait at all
            third = await window.acquire()
        return [first, second, third]

    waited = asyncio.run(scenario())
    assert waited == [0.0, pytest.approx(0.9), 0.0]
    assert shown == ["waiting for the rate limit (1 s)"]


def test_a_wait_of_no_seconds_tells_the_observer_nothing() -> None:
    told: list[tuple[float, str]] = []

    class Watcher:
        def call_sent(self) -> None:
            told.append((-1.0, "sent"))

        def waiting(self, seconds: float, reason: str) -> None:
            told.append((seconds, reason))

    activity.waiting(0.5, activity.THROTTLED)  # no observer: nothing to tell
    with activity.observing(Watcher()):
        activity.waiting(0.0, activity.RATE_LIMIT)
        activity.waiting(0.25, activity.THROTTLED)
        activity.call_sent()
    activity.waiting(3.0, activity.RATE_LIMIT)  # the observer is gone
    assert told == [(0.25, activity.THROTTLED), (-1.0, "sent")]


def test_a_request_on_the_wire_is_followed_until_it_ends_however_it_ends() -> None:
    clock = Clock()
    tracker = Tracker(clock)
    with activity.observing(tracker):
        with activity.sending("helpdesk", "GET", "/api/Companies"):
            clock.now += 3
            assert tracker.wait_text() == (
                "waiting for the helpdesk to answer GET /api/Companies (3 s)"
            )
        assert tracker.wait_text() == ""
        with pytest.raises(TimeoutError), activity.sending("workspace", "POST", "/employees"):
            clock.now += 2
            assert tracker.wait_text() == (
                "waiting for the workspace to answer POST /employees (2 s)"
            )
            raise TimeoutError
        assert tracker.wait_text() == ""
    assert tracker.calls == 2
    with activity.sending("helpdesk", "GET", "/api/Users"):  # no observer: nothing told
        pass
    assert tracker.calls == 2


def test_an_observer_that_only_counts_is_told_of_each_call_and_nothing_else() -> None:
    told: list[str] = []

    class Counter:
        def call_sent(self) -> None:
            told.append("sent")

        def waiting(self, seconds: float, reason: str) -> None:
            told.append(f"waiting {seconds}")

        answer_awaited = None  # not a method: the observer does not follow answers

    with activity.observing(Counter()):
        with activity.sending("helpdesk", "GET", "/api/Companies"):
            told.append("on the wire")
        with activity.sending("helpdesk", "GET", "/api/Users"):
            pass
    assert told == ["sent", "on the wire", "sent"]
