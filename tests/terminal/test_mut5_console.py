"""The apply reporter (terminal/console.py) used as a context manager with `as`, the way a
caller of the terminal package writes it: what it shows on stdout and stderr, whole."""

from __future__ import annotations

import pytest

from reconciler.applying.executor import ApplyReport
from reconciler.plans import Action, Change, Operation, Plan
from reconciler.render import format_text
from reconciler.terminal.console import ApplyReporter

ONE = Plan(
    changes=(
        Change("users", "u", Action.create, operations=(Operation("workspace", "POST", "/x"),)),
    )
)


def test_the_reporter_entered_with_as_shows_the_plan_and_the_start(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("RECONCILER_PROGRESS_INTERVAL", "3600")  # no plain line meanwhile
    with ApplyReporter(color=False) as reporter:
        reporter.read("users")
        reporter.planned(ONE)
        reporter.started(ONE)
        reporter.operation_done()
        reporter.finished(ApplyReport(done=["users.u"], operations_sent=1))
    said = capsys.readouterr()
    assert said.out == format_text(ONE, color=False, diagnostics=False)
    assert said.err == "Applying: 1 API call; no rate limit applies.\n"
