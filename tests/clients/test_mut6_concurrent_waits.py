"""What the progress display shows while two answers are awaited at once (the clients
report each request on the wire, clients/activity.py; terminal/progress.py's Tracker
shows them): the older one is named with "and 1 other call(s)"; when it is answered, the
other is still shown, named, with its own time; when both are answered, nothing."""

from __future__ import annotations

import asyncio

import httpx

from reconciler.clients import BasicAuth, HelpdeskClient, RateLimits, activity
from reconciler.terminal.progress import Tracker


class Clock:
    def __init__(self) -> None:
        self.now = 500.0

    def __call__(self) -> float:
        return self.now


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
