"""Each environment of a fleet says when it waits for a `429` to pass (fleet/plans.py):
once per wait, whichever of its calls were answered 429 together, and only its own."""

from __future__ import annotations

import asyncio

from reconciler.clients import activity
from reconciler.fleet.plans import EnvironmentWaits, saying_waits


def test_a_429_wait_is_said_once_with_its_length() -> None:
    said: list[str] = []
    now = [100.0]
    waits = EnvironmentWaits("acme", said.append, clock=lambda: now[0])
    waits.waiting(9.2, activity.THROTTLED)
    waits.waiting(9.0, activity.THROTTLED)  # another call of the same stretch
    waits.waiting(30.0, activity.RATE_LIMIT)  # the client's own pacing: not a stall
    now[0] += 12
    waits.waiting(4.0, activity.THROTTLED)  # a later stretch
    assert said == [
        "env acme: waiting for a 429 to pass (9 s)",
        "env acme: waiting for a 429 to pass (4 s)",
    ]


def test_each_environment_hears_only_its_own_waits() -> None:
    said: list[str] = []

    async def environment(name: str, wait: float) -> None:
        with saying_waits(name, said.append):
            await asyncio.sleep(0)
            activity.waiting(wait, activity.THROTTLED)

    async def fleet() -> None:
        await asyncio.gather(
            asyncio.create_task(environment("acme", 9)),
            asyncio.create_task(environment("globex", 3)),
        )

    asyncio.run(fleet())
    assert sorted(said) == [
        "env acme: waiting for a 429 to pass (9 s)",
        "env globex: waiting for a 429 to pass (3 s)",
    ]
