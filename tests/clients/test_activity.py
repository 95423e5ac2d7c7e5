"""What the clients tell the progress display (clients/activity.py), as the display shows
it: a wait for the rate limit under one second is shown as it starts, with its length and
reason; a wait of nothing is not; a request on the wire is followed until it ends, however
it ends; two answers awaited at once are shown as the older one "and 1 other call(s)",
then the other alone; with no observer, or one that does not follow answers, nothing is
followed."""

from __future__ import annotations

import asyncio

import httpx
import pytest

from reconciler.clients import BasicAuth, HelpdeskClient, RateLimits, activity
from reconciler.clients.ratelimit import SlidingWindow
from reconciler.terminal.progress import Tracker
from tests.clients.conftest import Sleeper
from tests.sandbox.conftest import FakeClock


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
        timeout = TimeoutError("no answer in time")
        with (
            pytest.raises(TimeoutError) as raised,
            activity.sending("workspace", "POST", "/employees"),
        ):
            clock.now += 2
            assert tracker.wait_text() == (
                "waiting for the workspace to answer POST /employees (2 s)"
            )
            raise timeout
        assert raised.value is timeout  # the request's own error, passed on as it was
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


class Held(httpx.AsyncBaseTransport):
    """Answers the authorization at once; holds every other request until released."""

    def __init__(self) -> None:
        self.arrived: list[str] = []
        self.gates: dict[str, asyncio.Event] = {}

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        path = request.url.path
        if path.endswith("/Authorization"):
            return httpx.Response(200, json={"UserID": 1, "IsAdmin": True})
        gate = self.gates.setdefault(path, asyncio.Event())
        self.arrived.append(path)
        await gate.wait()
        return httpx.Response(200, json=[])

    async def until_arrived(self, count: int) -> None:
        for _ in range(1000):  # a bound, not a time: each turn lets the tasks run
            if len(self.arrived) >= count:
                return
            await asyncio.sleep(0)
        raise AssertionError(f"only {self.arrived} arrived")


def test_two_answers_awaited_at_once_are_both_shown_until_each_ends() -> None:
    clock = Clock()
    tracker = Tracker(clock)
    held = Held()
    shown: list[str] = []

    async def scenario() -> None:
        client = HelpdeskClient(
            "http://h.invalid/helpdesk",
            BasicAuth("admin", "secret"),
            limits=RateLimits(general=0, search=0),
            transport=held,
        )
        async with client:
            with activity.observing(tracker):
                companies = asyncio.create_task(client.companies())
                await held.until_arrived(1)
                clock.now += 1
                departments = asyncio.create_task(client.departments())
                await held.until_arrived(2)
                clock.now += 4
                shown.append(tracker.wait_text())
                held.gates["/helpdesk/api/Companies"].set()
                assert await companies == []
                shown.append(tracker.wait_text())
                held.gates["/helpdesk/api/Departments"].set()
                assert await departments == []
                shown.append(tracker.wait_text())

    asyncio.run(scenario())
    assert shown == [
        "waiting for the helpdesk to answer GET /api/Companies and 1 other call(s) (5 s)",
        "waiting for the helpdesk to answer GET /api/Departments (4 s)",
        "",
    ]
    assert tracker.calls == 3  # the authorization, then the two lists


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
