"""The progress display's ways out that `__exit__` does not cover, and the awaited answers
changed by the clients while the display thread reads them (terminal/progress.py)."""

from __future__ import annotations

import subprocess
import sys
import textwrap

from reconciler.terminal.progress import ReadingProgress, Tracker

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
    assert done.returncode != 0
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
