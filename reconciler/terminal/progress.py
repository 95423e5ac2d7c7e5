"""Progress on stderr while a run takes minutes: reading the live state (plan, and the
first half of apply) and executing operations (apply).

On a terminal, rich draws a spinner or a bar that redraws itself: the kinds read so far,
the calls made, operations done of the total, the time left at the rate budget, and
"waiting for the rate limit (N s)" while the client waits for its budget or a `429`.
Off a terminal (every CI job), one plain line every `interval` seconds says the same, so
a 13-minute run is never 13 silent minutes; the interval is RECONCILER_PROGRESS_INTERVAL
(default 30 s).

`Tracker` is the `activity.Observer` the clients report to (calls sent, waits started);
it is installed while a display is shown.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable
from contextlib import ExitStack
from typing import Any

import click

from reconciler.applying.estimate import budget_seconds, duration_text
from reconciler.clients import activity

DEFAULT_INTERVAL = 30.0
INTERVAL_VARIABLE = "RECONCILER_PROGRESS_INTERVAL"
Clock = Callable[[], float]


def plain_interval() -> float:
    """Seconds between two plain progress lines: RECONCILER_PROGRESS_INTERVAL or 30."""
    try:  # unset, blank or not a number: the default
        value = float(os.environ.get(INTERVAL_VARIABLE) or DEFAULT_INTERVAL)
    except ValueError:
        return DEFAULT_INTERVAL
    return value if value > 0 else DEFAULT_INTERVAL


# An answer awaited longer than this is named in the progress line.
SLOW_ANSWER = 1.0


class Tracker:
    """Calls sent, the answers awaited and the wait in progress, as the clients report
    them (`activity.AnswerObserver`)."""

    def __init__(self, clock: Clock = time.monotonic) -> None:
        self.clock = clock
        self.calls = 0
        self._wait_until = 0.0
        self._wait_reason = ""
        self._awaited: dict[object, tuple[float, str]] = {}  # key -> (since, what)

    def call_sent(self) -> None:
        self.calls += 1

    def answer_awaited(self, key: object, service: str, method: str, label: str) -> None:
        self._awaited[key] = (self.clock(), f"the {service} to answer {method} {label}")

    def answer_ended(self, key: object) -> None:
        self._awaited.pop(key, None)

    def answer_text(self) -> str:
        """`waiting for the helpdesk to answer GET /api/Companies (42 s)` when the oldest
        answer awaited is late, else empty."""
        try:
            since, what = min(self._awaited.values(), default=(0.0, ""))
        except RuntimeError:  # changed while read (the display runs in another thread)
            return ""
        waited = self.clock() - since
        if not what or waited < SLOW_ANSWER:
            return ""
        more = len(self._awaited) - 1
        others = f" and {more} other call(s)" if more > 0 else ""
        return f"waiting for {what}{others} ({waited:.0f} s)"

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
            return self.answer_text()
        what = "the rate limit" if self._wait_reason == activity.RATE_LIMIT else "a 429 to pass"
        return f"waiting for {what} ({left:.0f} s)"


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


class _Display:
    """What both displays share: the tracker is observed while shown; on a terminal a rich
    display redraws itself, elsewhere a plain line is printed every `interval` seconds."""

    def __init__(self, tracker: Tracker | None, interval: float | None) -> None:
        from rich.console import Console

        self.console = Console(stderr=True)
        self.tracker = tracker or Tracker()
        self.started = self.tracker.clock()
        self._shown: Any = None  # the rich display
        self._interval = interval or plain_interval()
        self._stack = ExitStack()  # what `__exit__` ends, last begun first ended

    def _show(self, rich_display: Callable[[], Any] | None, line: Callable[[], str]) -> None:
        """Observe the tracker, then show (nothing for no `rich_display`)."""
        self._stack.enter_context(activity.observing(self.tracker))
        if rich_display is None:
            return
        if self.console.is_terminal:
            self._shown = self._stack.enter_context(rich_display())
        else:
            ticker = Ticker(line, self._interval)
            ticker.start()
            self._stack.callback(ticker.stop)

    def __exit__(self, *exc: object) -> None:
        self._stack.close()
        self._shown = None


class ReadingProgress(_Display):
    """'Reading the live state' with the kinds read so far, the calls and the waits."""

    def __init__(self, tracker: Tracker | None = None, *, interval: float | None = None) -> None:
        super().__init__(tracker, interval)
        self.done: list[str] = []

    def text(self) -> str:
        read = f"read {', '.join(self.done)}" if self.done else ""
        calls = f"{self.tracker.calls:,} call(s)"
        return "Reading the live state: " + _join(read, calls, self.tracker.wait_text())

    def __rich__(self) -> Any:
        self._spinner.update(text=self.text())
        return self._spinner

    def __enter__(self) -> ReadingProgress:
        self._show(self._rich_spinner, self.text)
        return self

    def _rich_spinner(self) -> Any:
        from rich.live import Live
        from rich.spinner import Spinner

        self._spinner = Spinner("dots", text=self.text())
        return Live(self, console=self.console, transient=True, refresh_per_second=4)

    def read(self, kind: str) -> None:
        self.done.append(kind)


class OperationsProgress(_Display):
    """Operations done of the total, the time left at the rate budget, and the waits."""

    def __init__(
        self,
        total: int,
        *,
        per_minute: int = 0,
        tracker: Tracker | None = None,
        interval: float | None = None,
    ) -> None:
        super().__init__(tracker, interval)
        self.total = total
        self.per_minute = per_minute
        self.done = 0

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
        self._show(self._rich_bar if self.total else None, self.line)
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
        if self._shown is not None:
            self._shown.advance(self._task)
