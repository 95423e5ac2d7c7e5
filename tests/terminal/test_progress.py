"""The progress shown while a run takes minutes (terminal/progress.py): the time left at
the rate budget, the wait for the rate limit as it happens, a plain line every interval off
a terminal (the interval from RECONCILER_PROGRESS_INTERVAL), a late answer named, the kinds
read, the operations done; the tracker observed only while shown; a Ctrl-C as the plain line
starts, and awaited answers changed by the clients while the display reads them."""

from __future__ import annotations

import asyncio
import io
import re
import signal
import subprocess
import sys
import textwrap
import time

import pytest
from rich.console import Console

from reconciler.applying.estimate import budget_seconds, duration_text, estimate, estimate_text
from reconciler.clients import activity
from reconciler.clients.ratelimit import SlidingWindow
from reconciler.terminal.progress import (
    OperationsProgress,
    ReadingProgress,
    Ticker,
    Tracker,
    plain_interval,
)
from tests.applying.fakes import change, op, plan_of


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_the_estimate_counts_helpdesk_calls_against_the_budget() -> None:
    plan = plan_of(
        change("companies", "A", op("a1"), op("a2")),
        change("workspace.employees", "e", op("e1", service="workspace")),
    )
    found = estimate(plan, 90)
    assert (found.helpdesk_calls, found.workspace_calls, found.calls) == (2, 1, 3)
    assert estimate_text(found, 90).startswith("3 API calls; at the helpdesk's 90 calls a")
    # A sliding window: a minute's calls start at once, the 91st a minute later.
    assert budget_seconds(90, 90) == 0 and budget_seconds(91, 90) == 60
    assert budget_seconds(1_700, 90) == 18 * 60
    assert budget_seconds(30, 20, used=2) == 60 and budget_seconds(30, 20, used=500) == 120
    assert duration_text(1_133) == "about 19 min" and duration_text(20) == "under a minute"
    assert duration_text(4_000) == "about 1 h 07 min"
    assert estimate_text(estimate(plan, 0), 0) == "3 API calls; no rate limit applies."


def test_operations_show_done_of_total_the_time_left_and_the_wait() -> None:
    clock = Clock()
    tracker = Tracker(clock)
    progress = OperationsProgress(1_700, per_minute=90, tracker=tracker, interval=1)
    for _ in range(500):
        progress.advance()
    assert progress.line() == "Applying: 500 of 1,700 operations done; about 13 min left"
    tracker.waiting(12.2, activity.RATE_LIMIT)
    assert progress.line().endswith("; waiting for the rate limit (12 s)")
    tracker.waiting(56, activity.RATE_LIMIT)  # the time left includes the wait
    progress.done = 1_690
    assert progress.line() == (
        "Applying: 1,690 of 1,700 operations done; under a minute left; "
        "waiting for the rate limit (56 s)"
    )
    clock.now += 57
    assert "waiting" not in progress.line()
    tracker.waiting(30, activity.THROTTLED)
    assert progress.line().endswith("waiting for a 429 to pass (30 s)")


def test_the_time_left_follows_the_pace_seen_when_it_is_slower_than_the_budget() -> None:
    clock = Clock()
    progress = OperationsProgress(100, per_minute=0, tracker=Tracker(clock))
    for _ in range(10):
        progress.advance()
    clock.now += 600  # ten operations in ten minutes
    assert progress.seconds_left() == pytest.approx(5_400)


def test_the_rate_limiter_reports_its_waits_to_the_observer() -> None:
    clock = Clock()
    tracker = Tracker(clock)

    async def sleep(seconds: float) -> None:
        clock.now += seconds

    async def scenario() -> float:
        window = SlidingWindow(2, 60.0, clock, sleep)
        await window.acquire()
        await window.acquire()
        clock.now += 15
        with activity.observing(tracker):
            return await window.acquire()

    assert asyncio.run(scenario()) == 45
    assert tracker.wait_text() == ""  # the fake sleep has passed it already
    clock.now -= 45
    assert tracker.wait_text() == "waiting for the rate limit (45 s)"


def test_off_a_terminal_a_plain_line_comes_every_interval(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with ReadingProgress(interval=0.05) as reading:
        reading.read("companies")
        activity.call_sent()
        time.sleep(0.3)
    lines = capsys.readouterr().err.splitlines()
    assert len(lines) >= 2
    assert lines[-1] == "Reading the live state: read companies; 1 call(s)"


def test_a_ticker_stops() -> None:
    said: list[str] = []
    ticker = Ticker(lambda: said.append("x") or "tick", 0.01)
    ticker.start()
    time.sleep(0.1)
    ticker.stop()
    count = len(said)
    time.sleep(0.05)
    assert count > 0 and len(said) == count


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_the_display_is_drawn_on_standard_error_while_standard_output_is_a_file(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """`reconciler plan --format json > plan.json` at a terminal: the spinner goes to the
    terminal (standard error), the file gets nothing but what the command writes."""
    terminal, file = _Terminal(), io.StringIO()
    monkeypatch.setattr(sys, "stderr", terminal)
    monkeypatch.setattr(sys, "stdout", file)
    monkeypatch.delenv("TERM", raising=False)
    monkeypatch.delenv("NO_COLOR", raising=False)
    with ReadingProgress(interval=3600) as reading:
        reading.read("companies")
    assert file.getvalue() == ""
    assert "Reading the live state" in terminal.getvalue()


def test_at_a_terminal_the_apply_bar_names_what_it_does_and_counts_the_operations(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    terminal = _Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    monkeypatch.delenv("TERM", raising=False)
    monkeypatch.delenv("NO_COLOR", raising=False)
    with OperationsProgress(3, interval=3600) as progress:
        progress.advance()
    frames = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", terminal.getvalue()).split("\r")
    drawn = [f.strip() for f in frames if f.strip()]
    assert drawn and drawn[-1].startswith("Applying ")
    assert all(
        re.fullmatch(r"Applying [━╺╸]+ [01]/3 0:00:\d\d under a minute left", f) for f in drawn
    ), drawn


@pytest.mark.parametrize(
    ("raw", "interval"),
    [("", 30.0), ("  ", 30.0), ("5", 5.0), ("0.5", 0.5), ("0", 30.0), ("-2", 30.0),
     ("soon", 30.0), (None, 30.0)],
)  # fmt: skip
def test_the_interval_off_a_terminal_comes_from_the_environment_or_is_30_seconds(
    raw: str | None, interval: float, monkeypatch: pytest.MonkeyPatch
) -> None:
    if raw is None:
        monkeypatch.delenv("RECONCILER_PROGRESS_INTERVAL", raising=False)
    else:
        monkeypatch.setenv("RECONCILER_PROGRESS_INTERVAL", raw)
    assert plain_interval() == interval


def test_a_late_answer_is_named_with_the_others_awaited() -> None:
    clock = Clock()
    tracker = Tracker(clock)
    assert tracker.wait_text() == ""
    tracker.answer_awaited("a", "helpdesk", "GET", "/api/Companies")
    clock.now += 0.9
    assert tracker.wait_text() == ""  # not late yet
    clock.now += 0.1
    assert tracker.wait_text() == "waiting for the helpdesk to answer GET /api/Companies (1 s)"
    tracker.answer_awaited("b", "workspace", "POST", "/employees")
    clock.now += 1
    tracker.answer_awaited("c", "workspace", "GET", "/employees")
    clock.now += 40
    assert tracker.wait_text() == (
        "waiting for the helpdesk to answer GET /api/Companies and 2 other call(s) (42 s)"
    )
    tracker.answer_ended("a")
    tracker.answer_ended("a")  # ended twice: no harm
    assert tracker.wait_text() == (
        "waiting for the workspace to answer POST /employees and 1 other call(s) (41 s)"
    )
    # A wait for the rate limit is said first.
    tracker.waiting(10, activity.RATE_LIMIT)
    assert tracker.wait_text() == "waiting for the rate limit (10 s)"
    tracker.waiting(3, activity.THROTTLED)  # shorter than the wait in progress: kept
    assert tracker.wait_text() == "waiting for the rate limit (10 s)"
    tracker.waiting(10, activity.THROTTLED)  # no longer either: the first reason kept
    assert tracker.wait_text() == "waiting for the rate limit (10 s)"
    clock.now += 9.5
    assert tracker.wait_left() == pytest.approx(0.5)
    assert tracker.wait_text() == (
        "waiting for the workspace to answer POST /employees and 1 other call(s) (50 s)"
    )
    clock.now += 5
    assert tracker.wait_left() == 0.0


def test_reading_says_the_kinds_read_the_calls_and_the_wait() -> None:
    clock = Clock()
    tracker = Tracker(clock)
    reading = ReadingProgress(tracker, interval=60)
    assert reading.text() == "Reading the live state: 0 call(s)"
    reading.read("companies")
    reading.read("users")
    for _ in range(1_234):
        tracker.call_sent()
    tracker.waiting(7, activity.THROTTLED)
    assert reading.text() == (
        "Reading the live state: read companies, users; 1,234 call(s); "
        "waiting for a 429 to pass (7 s)"
    )


def test_the_calls_are_counted_only_while_shown() -> None:
    tracker = Tracker(Clock())
    activity.call_sent()
    with ReadingProgress(tracker, interval=60):
        activity.call_sent()
        activity.call_sent()
    activity.call_sent()
    assert tracker.calls == 2


def test_the_last_operation_leaves_no_time_left() -> None:
    clock = Clock()
    progress = OperationsProgress(2, per_minute=90, tracker=Tracker(clock), interval=60)
    assert progress.line() == "Applying: 0 of 2 operations done; under a minute left"
    progress.advance()
    progress.advance()
    assert progress.line() == "Applying: 2 of 2 operations done"


def terminal() -> tuple[Console, io.StringIO]:
    out = io.StringIO()
    return Console(file=out, force_terminal=True, width=120), out


def test_on_a_terminal_the_spinner_shows_the_text() -> None:
    reading = ReadingProgress(Tracker(Clock()), interval=60)
    reading.console, _ = terminal()
    with reading:
        reading.read("companies")
        spinner = reading.__rich__()
        assert str(spinner.text) == "Reading the live state: read companies; 0 call(s)"


def test_on_a_terminal_the_bar_advances_and_nothing_is_shown_for_no_operation() -> None:
    progress = OperationsProgress(3, tracker=Tracker(Clock()), interval=60)
    progress.console, _ = terminal()
    with progress:
        progress.advance()
        [task] = progress._shown.tasks
        assert (task.completed, task.total, task.description) == (1, 3, "Applying")
    empty = OperationsProgress(0, tracker=Tracker(Clock()), interval=60)
    empty.console, out = terminal()
    with empty:
        empty.advance()
    assert out.getvalue() == ""


# A Ctrl-C that lands just after the plain progress line's thread has started, before the
# display is entered or recorded (`ApplyReporter.started` stores the bar only once its
# `__enter__` returns): nothing calls `__exit__`, so nothing stops that thread.
INTERRUPTED_AS_IT_STARTS = textwrap.dedent(
    """
    from reconciler.terminal import progress

    started = progress.Ticker.start

    def start_then_interrupted(self):
        started(self)
        raise KeyboardInterrupt

    progress.Ticker.start = start_then_interrupted
    with progress.ReadingProgress(interval=3600):
        pass
    """
)


def test_a_ctrl_c_as_the_plain_progress_starts_still_ends_the_process() -> None:
    # The bound only stops a hang (the line's thread keeping the process alive for ever):
    # the child ends in about a second.
    done = subprocess.run(
        [sys.executable, "-c", INTERRUPTED_AS_IT_STARTS],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == -signal.SIGINT  # ended by the interrupt, as Python ends on one
    assert done.stderr.rstrip().endswith("KeyboardInterrupt")
    assert "Reading the live state" not in done.stderr  # no line for an hour


class Moment(float):
    """A clock reading whose comparison lets the clients end an awaited answer meanwhile,
    as the clients' thread does while the display's thread reads the answers."""

    on_compare: list[object] = []

    def __eq__(self, other: object) -> bool:
        while self.on_compare:
            self.on_compare.pop()()  # type: ignore[operator]
        return float(self) == other

    __hash__ = float.__hash__


def test_answers_changed_while_read_show_no_wait_that_tick_and_the_next_is_whole() -> None:
    now = [100.0]
    tracker = Tracker(lambda: Moment(now[-1]))  # a new reading each time
    tracker.answer_awaited("a", "helpdesk", "GET", "/api/Companies")
    tracker.answer_awaited("b", "helpdesk", "GET", "/api/Users")
    tracker.answer_awaited("c", "workspace", "GET", "/employees")
    now.append(142.0)
    reading = ReadingProgress(tracker, interval=60)
    Moment.on_compare.append(lambda: tracker.answer_ended("c"))
    assert reading.text() == "Reading the live state: 0 call(s)"
    Moment.on_compare.append(lambda: tracker.answer_awaited("d", "helpdesk", "GET", "/x"))
    assert tracker.answer_text() == ""
    assert reading.text() == (
        "Reading the live state: 0 call(s); waiting for the helpdesk to answer "
        "GET /api/Companies and 2 other call(s) (42 s)"
    )
