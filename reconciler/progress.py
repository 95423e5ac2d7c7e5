"""Progress on stderr while a run takes minutes: reading the live state (plan, and the
first half of apply) and executing operations (apply).

On a terminal, rich draws a spinner or a bar that redraws itself: the kinds read so far,
the calls made, operations done of the total, the time left at the rate budget, and
"waiting for the rate limit (N s)" while the client waits for its budget or a `429`.
Off a terminal (every CI job), one plain line every `interval` seconds says the same, so
a 13-minute run is never 13 silent minutes; the interval is RECONCILER_PROGRESS_INTERVAL
(default 30 s).

`Tracker` is the `activity.Observer` the clients report to (calls sent, waits started);
it is installed for the run by `observing()`.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import click

from reconciler import activity
from reconciler.estimate import budget_seconds, duration_text

DEFAULT_INTERVAL = 30.0
INTERVAL_VARIABLE = "RECONCILER_PROGRESS_INTERVAL"
Clock = Callable[[], float]


def plain_interval() -> float:
    """Seconds between two plain progress lines: RECONCILER_PROGRESS_INTERVAL or 30."""
    raw = os.environ.get(INTERVAL_VARIABLE, "")
    try:
        value = float(raw) if raw.strip() else DEFAULT_INTERVAL
    except ValueError:
        return DEFAULT_INTERVAL
    return value if value > 0 else DEFAULT_INTERVAL


class Tracker:
    """Calls sent and the wait in progress, as the clients report them."""

    def __init__(self, clock: Clock = time.monotonic) -> None:
        self.clock = clock
        self.calls = 0
        self._wait_until = 0.0
        self._wait_reason = ""

    def call_sent(self) -> None:
        self.calls += 1

    def waiting(self, seconds: float, reason: str) -> None:
        until = self.clock() + seconds
        if until > self._wait_until:
            self._wait_until, self._wait_reason = until, reason

    def wait_left(self) -> float:
        return max(0.0, self._wait_until - self.clock())

    def wait_text(self) -> str:
        """`waiting for the rate limit (12 s)` while a wait lasts, else empty."""
        left = self.wait_left()
        if left <= 0.5:
            return ""
        what = "the rate limit" if self._wait_reason == activity.RATE_LIMIT else "a 429 to pass"
        return f"waiting for {what} ({left:.0f} s)"


@contextmanager
def observing(tracker: Tracker) -> Iterator[Tracker]:
    with activity.observing(tracker):
        yield tracker


class Ticker:
    """Calls `line()` and prints it every `interval` seconds from a daemon thread."""

    def __init__(self, line: Callable[[], str], interval: float) -> None:
        self.line = line
        self.interval = interval
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="progress", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join(timeout=5)

    def _run(self) -> None:
        while not self._stop.wait(self.interval):
            click.echo(self.line(), err=True)


def _join(*parts: str) -> str:
    return "; ".join(p for p in parts if p)


class ReadingProgress:
    """'Reading the live state' with the kinds read so far, the calls and the waits."""

    def __init__(self, tracker: Tracker | None = None, *, interval: float | None = None) -> None:
        from rich.console import Console

        self.console = Console(stderr=True)
        self.tracker = tracker or Tracker()
        self.done: list[str] = []
        self.started = self.tracker.clock()
        self._live: Any = None
        self._ticker: Ticker | None = None
        self._observing: Any = None
        self._interval = interval or plain_interval()

    def text(self) -> str:
        read = f"read {', '.join(self.done)}" if self.done else ""
        calls = f"{self.tracker.calls:,} call(s)"
        return "Reading the live state: " + _join(read, calls, self.tracker.wait_text())

    def __rich__(self) -> Any:
        self._spinner.update(text=self.text())
        return self._spinner

    def __enter__(self) -> ReadingProgress:
        from rich.live import Live
        from rich.spinner import Spinner

        self._observing = observing(self.tracker)
        self._observing.__enter__()
        if self.console.is_terminal:
            self._spinner = Spinner("dots", text=self.text())
            self._live = Live(self, console=self.console, transient=True, refresh_per_second=4)
            self._live.__enter__()
        else:
            self._ticker = Ticker(self.text, self._interval)
            self._ticker.start()
        return self

    def read(self, kind: str) -> None:
        self.done.append(kind)

    def __exit__(self, *exc: object) -> None:
        if self._live is not None:
            self._live.__exit__(None, None, None)
            self._live = None
        if self._ticker is not None:
            self._ticker.stop()
            self._ticker = None
        if self._observing is not None:
            self._observing.__exit__(None, None, None)
            self._observing = None


class OperationsProgress:
    """Operations done of the total, the time left at the rate budget, and the waits."""

    def __init__(
        self,
        total: int,
        *,
        per_minute: int = 0,
        tracker: Tracker | None = None,
        interval: float | None = None,
    ) -> None:
        from rich.console import Console

        self.console = Console(stderr=True)
        self.total = total
        self.per_minute = per_minute
        self.tracker = tracker or Tracker()
        self.done = 0
        self.started = self.tracker.clock()
        self._bar: Any = None
        self._ticker: Ticker | None = None
        self._observing: Any = None
        self._interval = interval or plain_interval()

    def seconds_left(self) -> float:
        """At the rate budget after the wait in progress, or at the pace seen so far
        when that is slower."""
        remaining = self.total - self.done
        at_budget = self.tracker.wait_left() + budget_seconds(remaining, self.per_minute)
        elapsed = self.tracker.clock() - self.started
        seen = elapsed / self.done * remaining if self.done else 0.0
        return max(at_budget, seen)

    def status(self) -> str:
        left = f"{duration_text(self.seconds_left())} left" if self.done < self.total else ""
        return _join(left, self.tracker.wait_text())

    def line(self) -> str:
        done = f"{self.done:,} of {self.total:,} operations done"
        return "Applying: " + _join(done, self.status())

    def __enter__(self) -> OperationsProgress:
        self._observing = observing(self.tracker)
        self._observing.__enter__()
        if not self.total:
            return self
        if self.console.is_terminal:
            self._bar = self._rich_bar()
            self._bar.__enter__()
        else:
            self._ticker = Ticker(self.line, self._interval)
            self._ticker.start()
        return self

    def _rich_bar(self) -> Any:
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            Progress,
            ProgressColumn,
            TimeElapsedColumn,
        )
        from rich.text import Text

        owner = self

        class StatusColumn(ProgressColumn):
            def render(self, task: Any) -> Text:
                return Text(owner.status())

        bar = Progress(
            "[progress.description]{task.description}",
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            StatusColumn(),
            console=self.console,
            transient=True,
        )
        self._task = bar.add_task("Applying", total=self.total)
        return bar

    def advance(self) -> None:
        self.done += 1
        if self._bar is not None:
            self._bar.advance(self._task)

    def __exit__(self, *exc: object) -> None:
        if self._bar is not None:
            self._bar.__exit__(None, None, None)
            self._bar = None
        if self._ticker is not None:
            self._ticker.stop()
            self._ticker = None
        if self._observing is not None:
            self._observing.__exit__(None, None, None)
            self._observing = None
