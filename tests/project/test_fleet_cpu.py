"""What a fleet's plan spends per environment (issue 23's benchmark,
benchmarks/fleet_bench.py): work that is the same for every environment is done once,
and nothing is done for nothing. Each case checks the result a user sees as well."""

from __future__ import annotations

import asyncio
import gc

import pytest

from reconciler.planning.gcpause import fewer_collections
from reconciler.project.fleet import in_order, run_to_end


class Loud:
    """A result that counts how often it is turned into text."""

    shown = 0

    def __repr__(self) -> str:
        Loud.shown += 1
        return "Loud()"


def test_run_to_end_hands_back_the_result_without_formatting_it() -> None:
    async def work() -> list[Loud]:
        await asyncio.sleep(0)
        return [Loud(), Loud()]

    Loud.shown = 0
    results = run_to_end(work())
    assert len(results) == 2 and all(isinstance(item, Loud) for item in results)
    assert Loud.shown == 0


def test_run_to_end_keeps_the_order_of_in_order() -> None:
    seen: list[int] = []

    async def one(value: int) -> int:
        await asyncio.sleep(0.001 * (3 - value))
        return value

    work = [lambda v=v: one(v) for v in range(3)]
    assert run_to_end(in_order(work, max_parallel=0, on_done=seen.append)) == [0, 1, 2]
    assert seen == [0, 1, 2]


def test_fewer_collections_for_the_duration_then_as_before() -> None:
    before = gc.get_threshold()
    with fewer_collections(young=50_000):
        assert gc.get_threshold() == (50_000, *before[1:])
    assert gc.get_threshold() == before
    with pytest.raises(RuntimeError), fewer_collections(young=50_000):
        raise RuntimeError("an environment's failure")
    assert gc.get_threshold() == before
    gc.set_threshold(90_000, *before[1:])  # a caller's own larger setting is kept
    try:
        with fewer_collections(young=50_000):
            assert gc.get_threshold()[0] == 90_000
    finally:
        gc.set_threshold(*before)
