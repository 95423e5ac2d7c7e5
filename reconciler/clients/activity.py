"""What the clients are doing, for whoever shows progress: each call as it is sent and
until its answer arrives (`sending`), and each wait (for the client-side rate limit, or a
`429`) as it starts, with its length.

The observer is a context variable, set by the command line around a run
(`observing`); asyncio tasks inherit it, so every client of the run reports to it
without being handed anything. With no observer set, reporting costs a lookup."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Protocol, runtime_checkable

RATE_LIMIT = "rate limit"
THROTTLED = "429"


class Observer(Protocol):
    def call_sent(self) -> None:
        """A request is being sent (retries included)."""

    def waiting(self, seconds: float, reason: str) -> None:
        """A wait of `seconds` starts: RATE_LIMIT (the client's own budget) or THROTTLED
        (the service answered 429)."""


@runtime_checkable
class AnswerObserver(Protocol):
    """An observer that also follows each request until its answer (or failure)."""

    def answer_awaited(self, key: object, service: str, method: str, label: str) -> None:
        """`method label` was sent to `service`; its answer is awaited."""

    def answer_ended(self, key: object) -> None:
        """The request `key` ended: answered, failed or cancelled."""


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


@contextmanager
def sending(service: str, method: str, label: str) -> Iterator[None]:
    """Around one request on the wire: counted as sent, and followed until it ends, so
    that progress can say what is being waited for."""
    call_sent()
    observer = _OBSERVER.get()
    if not isinstance(observer, AnswerObserver):
        yield
        return
    key = object()
    observer.answer_awaited(key, service, method, label)
    try:
        yield
    finally:
        observer.answer_ended(key)
