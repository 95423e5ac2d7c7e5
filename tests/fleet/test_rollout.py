"""The rollout of an apply over several environments (fleet/rollout.py) with sessions
stood in for: waves in order, a wave's environments at once, a failure stopping the next
wave, a fresh plan that differs refused, and Ctrl-C (`Stop`): what executes is
interrupted (what was sent finishes), what has not begun writing does not begin, and no
later wave starts."""

from __future__ import annotations

# ruff: noqa: E501  (a case is one line, whatever its length)
import asyncio
from typing import Any

import pytest

from reconciler.applying.executor import ApplyReport
from reconciler.applying.session import ApplyDeclined, ApplyOutcome
from reconciler.changes import Action, Change, Plan
from reconciler.errors import ReconcilerError
from reconciler.fleet import rollout
from reconciler.fleet.plans import EnvironmentRun
from reconciler.fleet.rollout import ApplyRequest, Result, Stop, apply_summary, apply_waves
from reconciler.fleet.waves import Wave

PLAN = Plan((Change("users", "u1", Action.create),))
WAVES = [Wave(1, ("acme", "globex")), Wave(2, ("initech",))]


class FakeSession:
    """An ApplySession that does what `script[name]` says: "ok", "fail" (an error),
    "changed" (the fresh plan differs), "ctrl-c" (Ctrl-C arrives while it executes),
    "wait" (plans only once the Ctrl-C has come)."""

    script: dict[str, str] = {}
    stop: Stop
    ctrl_c: asyncio.Event

    def __init__(self, desired: Any, connection: Any, **options: Any) -> None:
        self.name = connection.environment
        self.interrupted = False

    async def __aenter__(self) -> FakeSession:
        return self

    async def __aexit__(self, *exc: object) -> None:
        return None

    def interrupt(self) -> bool:
        self.interrupted = True
        return True

    async def apply(self, *, confirm: Any) -> ApplyOutcome:
        what = self.script[self.name]
        if what == "fail":
            raise ReconcilerError("another apply is running")
        if what == "wait":
            await FakeSession.ctrl_c.wait()
        fresh = Plan((Change("users", "u2", Action.create),)) if what == "changed" else PLAN
        if not confirm(fresh):
            raise ApplyDeclined("nothing applied")
        if what == "ctrl-c":
            self.stop.interrupt()  # the signal handler's call
            FakeSession.ctrl_c.set()
        report = ApplyReport(done=['users["u1"]'], interrupted=self.interrupted)
        return ApplyOutcome(fresh, report, None)


def _runs() -> list[EnvironmentRun]:
    return [
        EnvironmentRun(name, plan=PLAN, desired=object(),  # type: ignore[arg-type]
                       connection=type("C", (), {"environment": name})())  # type: ignore[arg-type]
        for name in ("acme", "globex", "initech")
    ]  # fmt: skip


# (what each environment's session does, the results, the summary's last line)
CASES = [
    ({"acme": "ok", "globex": "ok", "initech": "ok"},
     ["applied", "applied", "applied"], "Applied 3 environment(s): acme, globex, initech."),
    ({"acme": "ok", "globex": "fail", "initech": "ok"},
     ["applied", "failed", "not attempted"], "Stopped after wave 1 (globex failed); not attempted: initech."),
    ({"acme": "changed", "globex": "ok", "initech": "ok"},
     ["failed", "applied", "not attempted"], "Stopped after wave 1 (acme failed); not attempted: initech."),
    ({"acme": "ctrl-c", "globex": "wait", "initech": "ok"},
     ["interrupted", "not attempted", "not attempted"], "Interrupted while applying acme; not attempted: globex, initech."),
]  # fmt: skip


@pytest.mark.parametrize(("script", "results", "verdict"), CASES)
def test_the_rollout(
    monkeypatch: pytest.MonkeyPatch, script: dict[str, str], results: list[str], verdict: str
) -> None:
    monkeypatch.setattr(rollout, "ApplySession", FakeSession)
    monkeypatch.setattr(FakeSession, "script", script)

    async def go() -> list[Any]:
        stop = Stop()
        FakeSession.stop = stop
        FakeSession.ctrl_c = asyncio.Event()
        return await apply_waves(_runs(), WAVES, ApplyRequest(), max_parallel=0, stop=stop)

    done = asyncio.run(go())
    assert [item.result.value for item in done] == results
    assert apply_summary(done).splitlines()[-1] == verdict
    if "changed" in script.values():
        assert done[0].error == "the plan changed since it was shown: not applied; plan again"


def test_nothing_starts_once_stopped(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(rollout, "ApplySession", None)  # never made
    stop = Stop()
    stop.interrupt()
    done = asyncio.run(apply_waves(_runs(), WAVES, ApplyRequest(), max_parallel=0, stop=stop))
    assert [item.result for item in done] == [Result.NOT_ATTEMPTED] * 3
