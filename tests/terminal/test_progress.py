"""The progress shown while a run takes minutes: the time left at the rate budget, the
wait for the rate limit as it happens, and a plain line every interval off a terminal."""

from __future__ import annotations

import asyncio
import io
import re
import sys
import time

import pytest

from reconciler.applying.estimate import budget_seconds, duration_text, estimate, estimate_text
from reconciler.clients import activity
from reconciler.clients.ratelimit import SlidingWindow
from reconciler.terminal.progress import OperationsProgress, ReadingProgress, Ticker, Tracker
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
