"""One environment's apply in a rollout (fleet/rollout.py) with its real session: the
`--lock-timeout` it is given reaches the lock (the refusal says how long it waited), its
log is named after it; and the rollout's summary table, whole, for each way it ends."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

import pytest

from reconciler.applying.executor import ApplyReport
from reconciler.applying.lock import ApplyLock
from reconciler.changes import Action, Change, Plan
from reconciler.clients.auth import Secret
from reconciler.clients.connection import Connection, HelpdeskConnection
from reconciler.errors import ProblemsError
from reconciler.fleet import rollout
from reconciler.fleet.plans import EnvironmentRun
from reconciler.fleet.rollout import (
    Applied,
    ApplyRequest,
    Result,
    Stop,
    apply_environment,
    apply_summary,
)
from reconciler.fleet.waves import Wave
from reconciler.manifest import DesiredState
from reconciler.manifest.models import Department, Manifest

URL = "https://acme.example.com"


def test_the_lock_timeout_reaches_the_lock(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RECONCILER_LOCK_DIR", str(tmp_path / "locks"))
    desired = DesiredState.from_manifest(Manifest(departments=[Department(name="IT")]))
    connection = Connection(HelpdeskConnection(URL, token=Secret("t")), None, environment="acme")
    plan = Plan((Change("departments", "IT", Action.create),))
    run = EnvironmentRun("acme", plan=plan, desired=desired, connection=connection)
    request = ApplyRequest(log_path=tmp_path / "apply-1.jsonl", lock_timeout=0.05)
    with ApplyLock([URL]):  # another apply holds the helpdesk's lock
        item = asyncio.run(apply_environment(run, Wave(2, ("acme",)), request))
    assert (item.name, item.result, item.report) == ("acme", Result.FAILED, None)
    assert item.log_path == tmp_path / "apply-1-acme.jsonl"
    assert not item.log_path.exists()  # nothing was written
    assert item.error is not None
    assert item.error.startswith(f"another apply is running for {URL}: process {os.getpid()} on ")
    assert item.error.endswith(
        "; refused after waiting 0.05 s. Wait for it to end (or give --lock-timeout "
        "SECONDS to wait), then apply again: it plans afresh"
    )


def _applied(name: str, wave: Wave, result: Result, done: int | None, seconds: float) -> Applied:
    report = None if done is None else ApplyReport(done=[f'users["u{i}"]' for i in range(done)])
    return Applied(name, wave, result=result, report=report, seconds=seconds)


def test_the_summary_of_a_rollout_that_stopped_after_a_wave() -> None:
    one, two = Wave(1, ("acme", "globex-long-name")), Wave(2, ("initech",))
    results = [
        _applied("acme", one, Result.APPLIED, 12, 3.04),
        _applied("globex-long-name", one, Result.FAILED, 1, 0.26),
        _applied("initech", two, Result.NOT_ATTEMPTED, None, 0),
    ]
    assert apply_summary(results) == (
        "environment       wave  result         changes  duration\n"
        "----------------  ----  -------------  -------  --------\n"
        "acme                 1  applied             12      3.0s\n"
        "globex-long-name     1  failed               1      0.3s\n"
        "initech              2  not attempted        -         -\n"
        "Stopped after wave 1 (globex-long-name failed); not attempted: initech.\n"
    )


def test_the_summary_without_waves() -> None:
    results = [
        _applied("a", Wave(None, ("a",)), Result.UNCHANGED, None, 1.0),
        _applied("b", Wave(None, ("b",)), Result.FAILED, None, 2.0),
        _applied("c", Wave(None, ("c",)), Result.FAILED, 0, 0.5),
    ]
    assert apply_summary(results) == (
        "environment  wave  result            changes  duration\n"
        "-----------  ----  ----------------  -------  --------\n"
        "a               -  nothing to apply        -      1.0s\n"
        "b               -  failed                  -      2.0s\n"
        "c               -  failed                  0      0.5s\n"
        "Stopped at environment b, c.\n"
    )


@pytest.mark.parametrize(
    ("results", "verdict"),
    [
        ([Result.APPLIED, Result.UNCHANGED], "Applied 2 environment(s): e0, e1."),
        ([Result.APPLIED, Result.NOT_ATTEMPTED], "Interrupted; not attempted: e1."),
        ([Result.INTERRUPTED, Result.APPLIED], "Interrupted while applying e0."),
        ([Result.INTERRUPTED, Result.INTERRUPTED], "Interrupted while applying e0, e1."),
        ([Result.FAILED, Result.APPLIED], "Stopped after wave 1 (e0 failed)."),
    ],
)
def test_the_verdict_line(results: list[Result], verdict: str) -> None:
    wave = Wave(1, ("e0", "e1"))
    done = [_applied(f"e{i}", wave, result, None, 0) for i, result in enumerate(results)]
    assert apply_summary(done).splitlines()[-1] == verdict


def test_an_environment_whose_service_is_not_configured_fails_with_the_reason() -> None:
    desired = DesiredState.from_manifest(Manifest(departments=[Department(name="IT")]))
    connection = Connection(None, None, environment="acme")
    plan = Plan((Change("departments", "IT", Action.create),))
    run = EnvironmentRun("acme", plan=plan, desired=desired, connection=connection)
    item = asyncio.run(apply_environment(run, Wave(None, ("acme",)), ApplyRequest()))
    assert (item.result, item.log_path) == (Result.FAILED, None)
    assert item.error == (
        "the manifests manage departments, but the helpdesk service is not configured: set "
        "HELPDESK_URL and HELPDESK_TOKEN (or HELPDESK_USERNAME and HELPDESK_PASSWORD), or "
        "leave it out with --exclude departments"
    )


def test_an_environment_waiting_for_its_turn_when_stopped_is_not_attempted() -> None:
    stop = Stop()
    stop.interrupt()
    run = EnvironmentRun("acme", plan=None)  # never looked at: it does not begin
    request = ApplyRequest(log_path=Path("logs/apply.jsonl"))
    item = asyncio.run(apply_environment(run, Wave(1, ("acme",)), request, stop=stop))
    assert (item.result, item.error, item.seconds) == (Result.NOT_ATTEMPTED, None, 0.0)
    assert item.log_path == Path("logs/apply-acme.jsonl")


class Refusing:
    """A session whose apply is refused with several located problems."""

    def __init__(self, *args: object, **kwargs: object) -> None:
        pass

    async def __aenter__(self) -> Refusing:
        return self

    async def __aexit__(self, *exc: object) -> None:
        return None

    async def apply(self, *, confirm: object) -> None:
        raise ProblemsError(["m.yaml:1:1: first problem", "m.yaml:2:3: second problem"])


def test_every_problem_of_a_refused_environment_is_its_error(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(rollout, "ApplySession", Refusing)
    plan = Plan((Change("departments", "IT", Action.create),))
    run = EnvironmentRun("acme", plan=plan, desired=object(), connection=object())  # type: ignore[arg-type]
    item = asyncio.run(apply_environment(run, Wave(1, ("acme",)), ApplyRequest()))
    assert item.result is Result.FAILED
    assert item.error == "m.yaml:1:1: first problem\nm.yaml:2:3: second problem"
