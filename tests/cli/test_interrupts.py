"""Ctrl-C and SIGTERM while an apply executes (cli/interrupts.py), with real signals on a
real event loop: the first asks the session to start nothing new and says so, the second
(or a first the session cannot take) stops at once; disarmed, the handlers are those from
before (SIGTERM as Ctrl-C, Ctrl-C ignored in a background job), and disarming twice leaves
alone a handler set in between. A command turns SIGTERM into
Ctrl-C for its own life only: a program that runs the CLI in-process (click's CliRunner,
a wrapper script) gets its own SIGTERM handler back."""

from __future__ import annotations

import asyncio
import os
import signal
from collections.abc import Iterator
from pathlib import Path
from types import FrameType, SimpleNamespace
from typing import Any

import pytest
from click.testing import CliRunner

from reconciler.cli import main
from reconciler.plans import Plan
from reconciler.run.apply import _run as run_apply
from reconciler.terminal.interrupts import ApplyInterrupts, sigterm_as_interrupt

SAID = (
    "\nInterrupted: starting nothing new; waiting for the operations already sent to "
    "finish. Press Ctrl-C again to stop at once (their outcome is then unknown).\n"
)


class Session:
    def __init__(self, takes: bool) -> None:
        self.takes = takes
        self.asked = 0

    def interrupt(self) -> bool:
        self.asked += 1
        return self.takes


def ours(signum: int, frame: FrameType | None) -> None:
    """A handler of the program around the command."""


@pytest.fixture(autouse=True)
def handlers_kept() -> Iterator[None]:
    saved = {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM)}
    # Harmless handlers underneath: a handler that failed to arm never ends the tests' process.
    for signum in saved:
        signal.signal(signum, ours)
    yield
    for signum, handler in saved.items():
        signal.signal(signum, handler)


async def run(session: Session, signals: list[int]) -> tuple[ApplyInterrupts, bool]:
    done = asyncio.Event()
    task = asyncio.create_task(done.wait())  # the apply's execution
    await asyncio.sleep(0)
    interrupts = ApplyInterrupts(session, task)
    interrupts.arm()
    for signum in signals:
        os.kill(os.getpid(), signum)
        await asyncio.sleep(0)  # the loop runs the handler
        await asyncio.sleep(0)
    cancelled = False
    if not task.cancelling():
        done.set()
    try:
        await task
    except asyncio.CancelledError:
        cancelled = True
    interrupts.disarm()
    return interrupts, cancelled


def test_the_first_signal_waits_for_what_was_sent(capsys: pytest.CaptureFixture[str]) -> None:
    session = Session(takes=True)
    interrupts, cancelled = asyncio.run(run(session, [signal.SIGTERM]))
    assert (session.asked, interrupts.count, interrupts.stopped_at_once) == (1, 1, False)
    assert not cancelled
    assert capsys.readouterr().err == SAID


def test_the_second_signal_stops_at_once(capsys: pytest.CaptureFixture[str]) -> None:
    session = Session(takes=True)
    interrupts, cancelled = asyncio.run(run(session, [signal.SIGINT, signal.SIGINT]))
    assert (session.asked, interrupts.count, interrupts.stopped_at_once) == (1, 2, True)
    assert cancelled
    assert capsys.readouterr().err == SAID  # said once


def test_a_first_signal_the_session_cannot_take_stops_at_once(
    capsys: pytest.CaptureFixture[str],
) -> None:
    interrupts, cancelled = asyncio.run(run(Session(takes=False), [signal.SIGTERM]))
    assert interrupts.stopped_at_once and cancelled
    assert capsys.readouterr().err == ""


def test_disarmed_the_handlers_are_those_from_before_and_a_second_disarm_does_nothing() -> None:
    """A command started with Ctrl-C ignored (a background job) keeps it ignored after the
    apply, and SIGTERM goes back to what the command made it (Ctrl-C), here `ours`."""

    def handlers() -> tuple[object, object]:
        return signal.getsignal(signal.SIGINT), signal.getsignal(signal.SIGTERM)

    async def scenario() -> None:
        task = asyncio.ensure_future(asyncio.sleep(0))
        interrupts = ApplyInterrupts(Session(takes=True), task)
        interrupts.disarm()  # never armed: nothing to undo
        assert handlers() == (signal.SIG_IGN, ours)
        interrupts.arm()
        assert signal.SIG_IGN not in handlers() and ours not in handlers()  # the loop's
        interrupts.disarm()
        assert handlers() == (signal.SIG_IGN, ours)
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        interrupts.disarm()  # a second time: leaves alone what was set in between
        assert handlers() == (signal.SIG_IGN, signal.SIG_DFL)
        await task

    before = {signum: signal.getsignal(signum) for signum in (signal.SIGINT, signal.SIGTERM)}
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, ours)
    try:
        asyncio.run(scenario())
    finally:
        for signum, handler in before.items():
            if handler is not None:
                signal.signal(signum, handler)


def test_sigterm_is_ctrl_c_for_the_commands_life_only() -> None:
    signal.signal(signal.SIGTERM, ours)
    with pytest.raises(KeyboardInterrupt) as interrupted, sigterm_as_interrupt():
        os.kill(os.getpid(), signal.SIGTERM)
        signal.pthread_sigmask(signal.SIG_BLOCK, [])  # a point where the handler runs
    # Ctrl-C's own exception, with nothing to tell it apart: every command ends it alike.
    assert type(interrupted.value) is KeyboardInterrupt and not interrupted.value.args
    assert signal.getsignal(signal.SIGTERM) is ours


def test_the_embedding_programs_sigterm_handler_is_given_back_after_a_command(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "c.yaml").write_text("companies:\n  - name: Acme\n")
    monkeypatch.chdir(tmp_path)

    def ours(signum: int, frame: FrameType | None) -> None:
        """The embedding program's own handler."""

    previous = signal.signal(signal.SIGTERM, ours)
    try:
        # A plan against a service that is not there (nothing listens on port 9): it
        # reads under the command's handler, fails, and ends.
        env = {"HELPDESK_URL": "http://127.0.0.1:9/helpdesk", "HELPDESK_TOKEN": "t0ken"}
        result = CliRunner().invoke(main, ["plan", "c.yaml", "--rate-limit", "0"], env=env)
        assert result.exit_code == 1, result.output
        assert "127.0.0.1:9" in result.output
        assert signal.getsignal(signal.SIGTERM) is ours
    finally:
        signal.signal(signal.SIGTERM, previous)


class FailingSession:
    """An apply session whose operations start, then an error no report describes ends it
    (a bug, a disk full under the apply log)."""

    async def __aenter__(self) -> FailingSession:
        return self

    async def __aexit__(self, *exc: object) -> None:
        return None

    def interrupt(self) -> bool:
        return True

    async def apply(self, *, confirm: Any, progress: Any, saved: Any) -> Any:
        progress.started(Plan(changes=()))  # the handlers are armed here
        raise OSError(28, "No space left on device")


def test_an_apply_ended_by_an_error_gives_back_the_handlers_from_before(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Ctrl-C ignored (a background job), SIGTERM the program's own: after an apply that
    armed its handlers and then failed, both are as they were."""
    connection = SimpleNamespace(helpdesk=None, rates=None)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    with pytest.raises(OSError, match="No space left on device"):
        asyncio.run(run_apply(FailingSession(), connection, True, None))
    assert signal.getsignal(signal.SIGINT) is signal.SIG_IGN
    assert signal.getsignal(signal.SIGTERM) is ours
    assert capsys.readouterr().err == "Applying: 0 API calls; no rate limit applies.\n"
