"""The progress lines' words (terminal/progress.py), each whole: the interval off a
terminal from RECONCILER_PROGRESS_INTERVAL, a late answer named, the wait in progress,
the kinds read, the operations done; and the tracker observed only while shown."""

from __future__ import annotations

import io

import pytest
from rich.console import Console

from reconciler.clients import activity
from reconciler.terminal.progress import (
    OperationsProgress,
    ReadingProgress,
    Tracker,
    plain_interval,
)


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.mark.parametrize(
    ("raw", "interval"),
    [("", 30.0), ("  ", 30.0), ("5", 5.0), ("0.5", 0.5), ("0", 30.0), ("-2", 30.0),
     ("soon", 30.0), (None, 30.0)],
)  # fmt: skip
def test_the_interval_off_a_terminal(
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
