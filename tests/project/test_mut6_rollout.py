"""A fleet apply (fleet/rollout.py) with real sessions against the sandbox in-process:
every request of each environment's session goes through the transport the caller gives
(here no socket is listening: without it nothing is applied), `ApplyRequest`'s
parallelism bounds the writes in flight, its options shape the fresh plan (a fresh plan
made without them differs from the one shown and is refused; `--force` among them lets a
plan the brake holds through, and only then), and each environment's log is written
beside the one named."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import httpx
import pytest

from reconciler.applying.session import ApplyOptions, ApplySession
from reconciler.changes import Plan
from reconciler.clients.connection import Connection
from reconciler.fleet.plans import EnvironmentRun
from reconciler.fleet.rollout import ApplyRequest, Result, apply_summary, apply_waves
from reconciler.fleet.waves import Wave
from reconciler.manifest import DesiredState, load_manifests
from reconciler.manifest.models import Manifest, User
from reconciler.planning.plan import Selector
from reconciler.sandbox import SandboxState
from tests.applying.inprocess import EXAMPLE, asgi, connection, mismatches, seeded


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
