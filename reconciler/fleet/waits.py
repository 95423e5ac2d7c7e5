"""Over several environments at once, each environment says when it waits for a `429`
to pass: `env acme: waiting for a 429 to pass (9 s)` on stderr as the wait starts. With
one environment the progress line says it (terminal/progress.py); a fleet has no progress
line, and a minute of silence while a rate window passes looks like a hang.

Each environment's work runs in its own asyncio task, so an observer set there
(`clients/activity.py`'s context variable) hears that environment's clients alone."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

import click

from reconciler.clients import activity

# A wait ending within this many seconds of one already said is not said again: the
# calls of one environment in flight together are answered 429 together.
SAID_ALREADY = 1.0


class EnvironmentWaits:
    """The `activity.Observer` of one environment: says each `429` wait that ends later
    than the last one said."""

    def __init__(
        self,
        name: str,
        say: Callable[[str], None],
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.name = name
        self._say = say
        self._clock = clock
        self._until = 0.0

    def call_sent(self) -> None:
        pass

    def waiting(self, seconds: float, reason: str) -> None:
        if reason != activity.THROTTLED:
            return  # the client's own rate limit: paced, not stalled
        until = self._clock() + seconds
        if until <= self._until + SAID_ALREADY:
            return
        self._until = until
        self._say(f"env {self.name}: waiting for a 429 to pass ({seconds:.0f} s)")


def _stderr(line: str) -> None:
    click.echo(line, err=True)


@contextmanager
def saying_waits(name: str, say: Callable[[str], None] = _stderr) -> Iterator[None]:
    """While the block runs (in the environment's own task), its `429` waits are said."""
    with activity.observing(EnvironmentWaits(name, say)):
        yield
