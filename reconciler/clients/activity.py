"""What the clients are doing, for whoever shows progress: each call as it is sent, and
each wait (for the client-side rate limit, or a `429`) as it starts, with its length.

The observer is a context variable, set by the command line around a run
(`observing`); asyncio tasks inherit it, so every client of the run reports to it
without being handed anything. With no observer set, reporting costs a lookup."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Protocol

RATE_LIMIT = "rate limit"
THROTTLED = "429"


class Observer(Protocol):
    def call_sent(self) -> None:
        """A request is being sent (retries included)."""

    def waiting(self, seconds: float, reason: str) -> None:
        """A wait of `seconds` starts: RATE_LIMIT (the client's own budget) or THROTTLED
        (the service answered 429)."""


_OBSERVER: ContextVar[Observer | None] = ContextVar("reconciler_activity", default=None)


@contextmanager
def observing(observer: Observer) -> Iterator[Observer]:
    token = _OBSERVER.set(observer)
    try:
        yield observer
    finally:
        _OBSERVER.reset(token)


def call_sent() -> None:
    observer = _OBSERVER.get()
    if observer is not None:
        observer.call_sent()


def waiting(seconds: float, reason: str) -> None:
    observer = _OBSERVER.get()
    if observer is not None and seconds > 0:
        observer.waiting(seconds, reason)
