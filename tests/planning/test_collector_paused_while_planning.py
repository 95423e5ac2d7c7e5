"""The planner runs with the cyclic collector paused (planning/gcpause.py): off for the
duration of a plan, then as it was, however the plan ended; a caller that switched it
off keeps it off."""

from __future__ import annotations

import gc

import pytest

from reconciler.planning.gcpause import collector_paused


def test_the_collector_is_off_for_the_duration_then_as_before() -> None:
    assert gc.isenabled()
    with collector_paused():
        assert not gc.isenabled()
    assert gc.isenabled()
    with pytest.raises(RuntimeError), collector_paused():
        raise RuntimeError("a planner's failure")
    assert gc.isenabled()


def test_a_caller_that_switched_it_off_keeps_it_off() -> None:
    gc.disable()
    try:
        with collector_paused():
            assert not gc.isenabled()
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_the_pause_is_usable_as_a_decorator() -> None:
    @collector_paused()
    def planned() -> bool:
        return gc.isenabled()

    assert planned() is False and gc.isenabled()
