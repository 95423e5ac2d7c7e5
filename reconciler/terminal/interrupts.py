"""Ctrl-C and SIGTERM during a command (DESIGN §3: exit 130).

Outside the execution of an apply (reading, planning, the confirmation), nothing has
been written: SIGTERM is turned into the same KeyboardInterrupt as Ctrl-C, and the
command group ends with one line and exit 130.

While an apply executes, the first signal asks the session to start nothing new and
let the operations already sent finish (`ApplySession.interrupt`); the report then
says what was done, in flight and not attempted, and the command exits 130. A second
signal cancels the run at once: the operations in flight are abandoned (the apply log
still gets its end record) and the command exits 130 too.
"""

from __future__ import annotations

import asyncio
import signal
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, Protocol

import click

SIGNALS = (signal.SIGINT, signal.SIGTERM)
EXIT_INTERRUPTED = 130  # DESIGN §3, as the command line's group ends an interrupted run


class Interruptible(Protocol):
    def interrupt(self) -> bool: ...


def _terminate_as_interrupt(signum: int, frame: Any) -> None:
    raise KeyboardInterrupt()


@contextmanager
def sigterm_as_interrupt() -> Iterator[None]:
    """SIGTERM (a CI job cancelled, `kill`) handled as Ctrl-C for the command's life."""
    previous = signal.signal(signal.SIGTERM, _terminate_as_interrupt)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


class ApplyInterrupts:
    """Signal handlers on the running loop, armed while the apply executes."""

    def __init__(self, session: Interruptible, task: asyncio.Task[Any]) -> None:
        self.session = session
        self.task = task
        self.count = 0
        self.stopped_at_once = False
        self._previous: dict[int, Any] = {}  # signal -> its handler before `arm`

    def arm(self) -> None:
        loop = asyncio.get_running_loop()
        for signum in SIGNALS:
            self._previous[signum] = signal.getsignal(signum)
            loop.add_signal_handler(signum, self._on_signal)

    def disarm(self) -> None:
        """The handlers as they were before `arm`: remove_signal_handler would leave
        Python's defaults, so a command started with Ctrl-C ignored (a background job)
        would take it again, and SIGTERM would no longer be Ctrl-C."""
        loop = asyncio.get_running_loop()
        for signum, previous in self._previous.items():
            loop.remove_signal_handler(signum)
            if previous is not None:  # None: set from outside Python, not restorable
                signal.signal(signum, previous)
        self._previous.clear()

    def _on_signal(self) -> None:
        self.count += 1
        if self.count == 1 and self.session.interrupt():
            click.echo(
                "\nInterrupted: starting nothing new; waiting for the operations already "
                "sent to finish. Press Ctrl-C again to stop at once (their outcome is "
                "then unknown).",
                err=True,
            )
            return
        self.stopped_at_once = True
        self.task.cancel()
