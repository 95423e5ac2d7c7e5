"""Pausing CPython's cyclic garbage collector around a large pure computation.

The collector runs a pass every few hundred allocations, and its full passes walk every
tracked object on the heap. A plan of 100,000 objects allocates millions of objects while
hundreds of thousands (the desired and the live state) sit on the heap, so the passes,
not the planning, made the time grow faster than the size (15x for 10x the objects). The
planner makes almost no reference cycles, so nothing waits for the collector meanwhile;
what cycles there are are collected at the next pass after the pause.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def collector_paused() -> Iterator[None]:
    """The collector off for the duration (usable as a decorator); left as it was after,
    so a caller that switched it off keeps it off."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


@contextmanager
def fewer_collections(young: int = 20_000) -> Iterator[None]:
    """The collector's youngest generation collected after `young` allocations rather
    than CPython's 700, for the duration. A fleet's plans read while they run: thousands
    of answers parsed into objects that all stay alive, each young pass walking them in
    vain. Measured over 100 tenants (issue 23): from 315 passes and about 12 % of the
    CPU to 20 passes and 6 %; garbage in cycles still goes, at the fewer passes."""
    before = gc.get_threshold()
    gc.set_threshold(max(young, before[0]), *before[1:])
    try:
        yield
    finally:
        gc.set_threshold(*before)
