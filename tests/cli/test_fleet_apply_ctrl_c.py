"""Ctrl-C during `apply --env '*'` (fleet/apply.py) with real signals on the real
event loop: the first asks the rollout to start nothing new and says so, the second stops
it at once, naming the environments not finished, exit 130; and after a rollout, stopped
or not, Ctrl-C and SIGTERM are handled again as they were before the command. The
rollout itself (project/rollout.apply_waves) stands in here: one environment is applied,
then the user presses Ctrl-C twice while the next is under way."""

from __future__ import annotations

import asyncio
import os
import signal
from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

import reconciler.fleet.rollout as rollout
from reconciler.applying.executor import ApplyReport
from reconciler.fleet import apply as fleet_apply
from reconciler.fleet.rollout import Applied, Result, Wave
from reconciler.run.flags import ApplyFlags

FIRST = (
    "\nInterrupted: starting nothing new; waiting for the operations already sent to "
    "finish. Press Ctrl-C again to stop at once (their outcome is then unknown).\n"
)


def _run(name: str) -> Any:
    summary = {"create": 1, "update": 0, "delete": 0, "enable": 0, "disable": 0}
    plan = SimpleNamespace(to_apply=[object()], brake=None, summary=summary)
    return SimpleNamespace(name=name, plan=plan, connection=None)


def _rollout(presses: int, ended: list[str]) -> Callable[..., Any]:
    async def apply_waves(
        runs: list[Any], planned: list[Wave], request: Any, *, on_done: Any, stop: Any, **_: Any
    ) -> list[Applied]:
        first = Applied(runs[0].name, planned[0], Result.APPLIED, report=ApplyReport(),
                        log_path=Path("acme.jsonl"))  # fmt: skip
        on_done(first)
        if presses:
            os.kill(os.getpid(), signal.SIGINT)
            while not stop.requested:  # until the loop has run the handler
                await asyncio.sleep(0)
        if presses > 1:
            os.kill(os.getpid(), signal.SIGINT)
            try:
                await asyncio.Event().wait()  # the second Ctrl-C cancels this
            except asyncio.CancelledError:
                ended.append("cancelled")
                raise
        rest = [Applied(run.name, planned[0], Result.NOT_ATTEMPTED) for run in runs[1:]]
        return [first, *rest]

    return apply_waves


def handlers() -> tuple[Any, Any]:
    return signal.getsignal(signal.SIGINT), signal.getsignal(signal.SIGTERM)


@pytest.mark.parametrize("presses", [0, 1, 2])
def test_ctrl_c_during_a_fleet_apply_and_the_handlers_after_it(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], presses: int
) -> None:
    ended: list[str] = []
    monkeypatch.setattr(rollout, "apply_waves", _rollout(presses, ended))
    runs = [_run("acme"), _run("globex"), _run("initech")]
    planned = [Wave(None, ("acme", "globex", "initech"))]
    before = handlers()
    code: object = 0
    try:
        fleet_apply.apply_fleet(runs, ApplyFlags(yes=True), planned, 0)
    except SystemExit as stopped:
        code = stopped.code
    assert handlers() == before
    err = capsys.readouterr().err
    applied = (
        "=== Applied environment acme: applied\n"
        "Apply complete: 0 change(s), 0 operation(s). Log: acme.jsonl\n"
    )
    assert ended == (["cancelled"] if presses == 2 else [])  # the wave in flight was cancelled
    if presses == 2:
        assert code == 130
        assert err == (
            f"{applied}{FIRST}Stopped at once: not finished: globex, initech (the outcome of "
            "the operations in flight is unknown: see each environment's apply log).\n"
        )
        return
    assert code == 130  # globex and initech not attempted
    said = FIRST if presses else ""
    assert err.startswith(f"{applied}{said}environment  wave  result ")
    assert "globex          -  not attempted" in err


def test_a_fleet_apply_in_a_background_job_leaves_ctrl_c_ignored(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A shell starts a background job (`reconciler apply --env '*' &`) with Ctrl-C ignored:
    the rollout takes Ctrl-C while it runs, and gives it back ignored."""
    monkeypatch.setattr(rollout, "apply_waves", _rollout(0, []))
    runs = [_run("acme"), _run("globex"), _run("initech")]
    planned = [Wave(None, ("acme", "globex", "initech"))]
    before = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        with pytest.raises(SystemExit):
            fleet_apply.apply_fleet(runs, ApplyFlags(yes=True), planned, 0)
        assert handlers()[0] is signal.SIG_IGN
    finally:
        signal.signal(signal.SIGINT, before)
