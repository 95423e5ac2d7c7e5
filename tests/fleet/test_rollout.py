"""The rollout of an apply over several environments (project/rollout.py) with sessions
stood in for: waves in order, a wave's environments at once, a failure stopping the next
wave, a fresh plan that differs refused, and Ctrl-C (`Stop`): what executes is
interrupted (what was sent finishes), what has not begun writing does not begin, and no
later wave starts."""

from __future__ import annotations

# ruff: noqa: E501  (a case is one line, whatever its length)
import asyncio
import json
import os
from pathlib import Path
from typing import Any

import httpx
import pytest

from reconciler.applying.executor import ApplyReport
from reconciler.applying.lock import ApplyLock
from reconciler.applying.session import ApplyDeclined, ApplyOptions, ApplyOutcome, ApplySession
from reconciler.clients.auth import Secret
from reconciler.clients.connection import Connection, HelpdeskConnection
from reconciler.errors import ProblemsError, ReconcilerError
from reconciler.fleet import rollout
from reconciler.fleet.plans import EnvironmentRun
from reconciler.fleet.rollout import (
    Applied,
    ApplyRequest,
    Result,
    Stop,
    Wave,
    apply_environment,
    apply_summary,
    apply_waves,
)
from reconciler.kinds.departments import Department
from reconciler.kinds.users import User
from reconciler.manifest.desired import DesiredState
from reconciler.manifest.document import Manifest
from reconciler.manifest.loader import load_manifests
from reconciler.plans import Action, Change, Plan
from reconciler.plans.addresses import Selector
from reconciler.sandbox.state import SandboxState
from tests.applying.inprocess import EXAMPLE, asgi, connection, mismatches, seeded

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


# A fleet apply (project/rollout.py) with real sessions against the sandbox in-process: every
# request of each environment's session goes through the transport the caller gives (here no
# socket is listening: without it nothing is applied), `ApplyRequest`'s parallelism bounds the
# writes in flight, its options shape the fresh plan (a fresh plan made without them differs from
# the one shown and is refused; `--force` among them lets a plan the brake holds through, and only
# then), and each environment's log is written beside the one named.


class Writes(httpx.AsyncBaseTransport):
    """Passes every request on, each a little late; counts them and the writes in flight."""

    def __init__(self, inner: httpx.AsyncBaseTransport) -> None:
        self.inner = inner
        self.sent = 0
        self.writing = 0
        self.most = 0

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        self.sent += 1
        write = request.method != "GET" and not request.url.path.endswith("/Authorization")
        self.writing += write
        self.most = max(self.most, self.writing)
        try:
            await asyncio.sleep(0.002)  # long enough for every free slot to fill
            return await self.inner.handle_async_request(request)
        finally:
            self.writing -= write


@pytest.fixture(scope="module")
def desired() -> DesiredState:
    return load_manifests([EXAMPLE], env={})


@pytest.fixture(autouse=True)
def locks(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RECONCILER_LOCK_DIR", str(tmp_path / "locks"))


def shown(
    state: SandboxState, reach: Connection, desired: DesiredState, options: ApplyOptions
) -> Plan:
    """The plan shown before the confirmation, made with the same options."""

    async def make() -> Plan:
        async with ApplySession(desired, reach, options=options, transport=asgi(state)) as s:
            return await s.plan()

    return asyncio.run(make())


def test_a_fleet_apply_sends_through_the_callers_transport_with_its_parallelism(
    desired: DesiredState, tmp_path: Path
) -> None:
    state, credentials = seeded("acme-catalogue")
    reach = connection(credentials)  # http://127.0.0.1 (port 80): only the transport answers
    plan = shown(state, reach, desired, ApplyOptions())
    assert len(plan.to_apply) > 3
    run = EnvironmentRun("acme", plan=plan, desired=desired, connection=reach)
    through = Writes(asgi(state))
    request = ApplyRequest(log_path=tmp_path / "apply.jsonl", parallelism=3)
    done = asyncio.run(
        apply_waves([run], [Wave(None, ("acme",))], request, max_parallel=1, transport=through)
    )
    assert [(item.name, item.result, item.error) for item in done] == [
        ("acme", Result.APPLIED, None)
    ]
    assert apply_summary(done).splitlines()[-1] == "Applied 1 environment(s): acme."
    assert mismatches(state, credentials, desired) == []
    assert through.sent > len(plan.to_apply)  # the fresh plan's reads, then every write
    assert through.most == 3  # `--parallelism 3`, not the default 10
    report = done[0].report
    assert report is not None and len(report.done) == len(plan.to_apply)
    log = tmp_path / "apply-acme.jsonl"
    assert done[0].log_path == log
    operations = [e for e in map(json.loads, log.read_text().splitlines()) if "operation" in e]
    assert len(operations) == report.operations_sent


def test_a_fleet_apply_plans_afresh_with_the_options_it_was_shown_with(
    desired: DesiredState, tmp_path: Path
) -> None:
    state, credentials = seeded("acme")
    reach = connection(credentials)
    options = ApplyOptions(targets=(Selector.parse("categories"),))
    plan = shown(state, reach, desired, options)
    assert [change.address for change in plan.to_apply] == ['categories["Office Supplies"]']
    run = EnvironmentRun("acme", plan=plan, desired=desired, connection=reach)
    request = ApplyRequest(options=options, log_path=tmp_path / "apply.jsonl")
    done = asyncio.run(
        apply_waves([run], [Wave(1, ("acme",))], request, max_parallel=0, transport=asgi(state))
    )
    assert [(item.result, item.error) for item in done] == [(Result.APPLIED, None)]
    assert done[0].report is not None and done[0].report.done == ['categories["Office Supplies"]']
    left = {line.split(": ")[0] for line in mismatches(state, credentials, desired)}
    assert 'categories["Office Supplies"]' not in left
    assert 'users["hana"]' in left  # outside the target: not applied


@pytest.mark.parametrize("force", [False, True])
def test_a_fleet_apply_overrides_the_brake_only_with_force(force: bool, tmp_path: Path) -> None:
    state, credentials = seeded("acme")
    reach = connection(credentials)
    only_admin = DesiredState.from_manifest(Manifest(users=[User(username="admin")]))
    options = ApplyOptions(prune=True, force=force)
    plan = shown(state, reach, only_admin, options)
    assert plan.brake is not None and plan.brake.held == (
        "users: 10 of 11 live objects would change or go (91%, above the 30% limit)",
    )
    run = EnvironmentRun("acme", plan=plan, desired=only_admin, connection=reach)
    request = ApplyRequest(options=options, log_path=tmp_path / "apply.jsonl")
    [item] = asyncio.run(
        apply_waves([run], [Wave(1, ("acme",))], request, max_parallel=0, transport=asgi(state))
    )
    if force:
        assert (item.result, item.error) == (Result.APPLIED, None)
        assert item.report is not None and len(item.report.done) == 10
    else:
        assert (item.result, item.report) == (Result.FAILED, None)
        assert item.error == (
            "the safety brake holds (settings.safety):\n"
            "  users: 10 of 11 live objects would change or go (91%, above the 30% limit)\n"
            "Review the plan, then add --force to apply it anyway."
        )
        assert not item.log_path or not item.log_path.exists()  # nothing was written


# One environment's apply in a rollout (project/rollout.py) with its real session: the `--lock-
# timeout` it is given reaches the lock (the refusal says how long it waited), its log is named
# after it; and the rollout's summary table, whole, for each way it ends.

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


def test_the_summary_of_a_rollout_without_waves() -> None:
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
def test_the_last_line_of_the_summary_gives_the_rollouts_verdict(
    results: list[Result], verdict: str
) -> None:
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
