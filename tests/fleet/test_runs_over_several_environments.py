"""Planning several environments (project/fleet.py) against the in-process sandbox:
each environment's plan or its own error (manifest problems located, a credential not
set, a refused sign-in), in the project's order, handed to `on_done` one by one; the
same manifests loaded once for environments that share them; each environment's own
safety brake settings."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from reconciler.applying.executor import ApplyReport
from reconciler.applying.session import ApplyOutcome
from reconciler.fleet import rollout
from reconciler.fleet.plans import (
    EnvironmentRun,
    PlanRequest,
    in_order,
    plan_environments,
    prepare_all,
)
from reconciler.fleet.rollout import ApplyRequest, Result, Wave, apply_waves
from reconciler.fleet.summary import exit_code
from reconciler.plans import Action, Change, Plan
from reconciler.plans.addresses import Selector
from reconciler.project import load_project, resolve
from tests.applying.inprocess import asgi, seeded

PROJECT = """\
environments:
  acme:
    paths: [good.yaml]
    helpdesk_url: http://127.0.0.1/helpdesk
    credentials: {HELPDESK_USERNAME: ACME_USER, HELPDESK_PASSWORD: ACME_PASSWORD}
    safety: {max_change_percent: 1, min_existing: 1}
  twin:
    paths: [good.yaml]
    helpdesk_url: http://127.0.0.1/helpdesk
    credentials: {HELPDESK_USERNAME: ACME_USER, HELPDESK_PASSWORD: WRONG_PASSWORD}
  broken:
    paths: [bad.yaml]
    helpdesk_url: http://127.0.0.1/helpdesk
  unset:
    paths: [good.yaml]
    helpdesk_url: http://127.0.0.1/helpdesk
    credentials: {HELPDESK_TOKEN: NOT_SET_TOKEN}
"""
GOOD = "companies: [{name: Acme Corp, notes: moved}]\n"
BAD = "departments:\n  - name: IT\n    colour: red\n"


def test_every_environment_planned_or_failed_on_its_own(tmp_path: Path) -> None:
    (tmp_path / "reconciler.yaml").write_text(PROJECT, encoding="utf-8")
    (tmp_path / "good.yaml").write_text(GOOD, encoding="utf-8")
    (tmp_path / "bad.yaml").write_text(BAD, encoding="utf-8")
    state, credentials = seeded("acme")
    project = load_project(tmp_path / "reconciler.yaml")
    targets = [resolve(project, name) for name in ("acme", "twin", "broken", "unset")]
    environ = {
        "ACME_USER": credentials.helpdesk_username,
        "ACME_PASSWORD": credentials.helpdesk_password,
        "WRONG_PASSWORD": "not-the-password",
    }
    prepared = prepare_all(targets, environ, PlanRequest())
    acme, twin, broken, unset = prepared
    # One loading of good.yaml for the environments that share it; acme's own brake.
    assert acme.desired is not None and twin.desired is not None
    assert acme.desired.manifest.companies is twin.desired.manifest.companies
    assert acme.desired.settings.safety.max_change_percent == 1
    assert twin.desired.settings.safety.max_change_percent != 1
    assert (
        acme.desired.settings.safety.min_existing == 1 != twin.desired.settings.safety.min_existing
    )
    assert broken.error is not None and broken.desired is None
    where = f"{tmp_path / 'bad.yaml'}:3:5"
    assert broken.problems == [
        f"{where}: departments[0]: unknown field 'colour' (the fields: name)"
    ]
    assert broken.error == broken.problems[0]
    assert unset.connection is None
    assert unset.error == (
        "environment unset: NOT_SET_TOKEN (its HELPDESK_TOKEN) not set "
        f"({tmp_path / 'reconciler.yaml'}:14:3)"
    )
    seen: list[str] = []

    def done(run: EnvironmentRun) -> None:
        seen.append(run.name)

    runs = asyncio.run(
        plan_environments(
            prepared, PlanRequest(), max_parallel=2, on_done=done, transport=asgi(state)
        )
    )
    assert seen == [run.name for run in runs] == ["acme", "twin", "broken", "unset"]
    first, second, third, fourth = runs
    assert first.error is None and first.plan is not None
    assert [change.address for change in first.plan.changes] == ['companies["Acme Corp"]']
    assert first.plan.brake is not None and first.plan.brake.held == (
        "companies: 1 of 3 live objects would change or go (33%, above the 1% limit)",
    )
    assert first.plan.warnings == ()  # no prune: the other live companies are not named
    assert first.desired is acme.desired and first.connection is acme.connection
    assert first.seconds > 0
    assert second.plan is None and second.error is not None
    assert second.error == "POST /api/Authorization failed: 401 Invalid username, password or token"
    assert (third.error, third.problems, third.plan) == (broken.error, broken.problems, None)
    assert (fourth.error, fourth.seconds) == (unset.error, 0.0)
    assert exit_code(runs, detailed=True) == 1
    assert exit_code(runs[:1], detailed=True) == 2


# Options of a run over several environments reaching the far end (project/fleet.py,
# project/rollout.py): `max_parallel` bounds how many environments are planned or applied at once
# (0: all of them), whatever it is, results in the project's order; the plan request's `--prune`,
# `--target` and `--exclude` shape every environment's plan.


class Gauge:
    """How many of the work items are running at once, at most."""

    def __init__(self) -> None:
        self.now = 0
        self.most = 0

    async def running(self) -> None:
        self.now += 1
        self.most = max(self.most, self.now)
        try:
            for _ in range(5):  # turns of the loop, for every free slot to fill
                await asyncio.sleep(0)
        finally:
            self.now -= 1


# (max_parallel, work items, most at once)
CASES = [(0, 4, 4), (1, 4, 1), (2, 4, 2), (3, 4, 3), (4, 4, 4), (5, 4, 4), (0, 1, 1)]


@pytest.mark.parametrize(("max_parallel", "count", "most"), CASES)
def test_at_most_max_parallel_at_once_and_the_results_in_order(
    max_parallel: int, count: int, most: int
) -> None:
    gauge = Gauge()
    seen: list[int] = []

    async def one(value: int) -> int:
        await gauge.running()
        return value

    work = [lambda v=v: one(v) for v in range(count)]
    results = asyncio.run(in_order(work, max_parallel=max_parallel, on_done=seen.append))
    assert results == seen == list(range(count))
    assert gauge.most == most


def test_nothing_to_do_is_nothing_done() -> None:
    assert asyncio.run(in_order([], max_parallel=0)) == []


PLAN = Plan((Change("users", "u1", Action.create),))


class Counted:
    """An ApplySession that applies at once, counting the sessions applying together."""

    gauge: Gauge

    def __init__(self, desired: Any, connection: Any, **options: Any) -> None:
        pass

    async def __aenter__(self) -> Counted:
        return self

    async def __aexit__(self, *exc: object) -> None:
        return None

    async def apply(self, *, confirm: Any) -> ApplyOutcome:
        await self.gauge.running()
        assert confirm(PLAN)
        return ApplyOutcome(PLAN, ApplyReport(done=['users["u1"]']), None)


@pytest.mark.parametrize(("max_parallel", "most"), [(1, 1), (2, 2), (0, 3)])
def test_a_fleet_apply_applies_at_most_max_parallel_environments_at_once(
    monkeypatch: pytest.MonkeyPatch, max_parallel: int, most: int
) -> None:
    monkeypatch.setattr(rollout, "ApplySession", Counted)
    monkeypatch.setattr(Counted, "gauge", Gauge(), raising=False)
    names = ("acme", "globex", "initech")
    runs = [
        EnvironmentRun(name, plan=PLAN, desired=object(), connection=object())  # type: ignore[arg-type]
        for name in names
    ]
    seen: list[str] = []
    done = asyncio.run(
        apply_waves(
            runs,
            [Wave(1, names)],
            ApplyRequest(),
            max_parallel=max_parallel,
            on_done=lambda item: seen.append(item.name),
        )
    )
    assert [(item.name, item.result) for item in done] == [(n, Result.APPLIED) for n in names]
    assert seen == list(names)
    assert Counted.gauge.most == most


ONE_ENVIRONMENT_PROJECT = """\
environments:
  acme:
    paths: [m.yaml]
    helpdesk_url: http://127.0.0.1/helpdesk
    credentials: {HELPDESK_USERNAME: ACME_USER, HELPDESK_PASSWORD: ACME_PASSWORD}
"""
MANIFEST = "users: [{username: admin}]\nassets: [{serial_number: PF4KX2A2}]\n"
USERS = ["alice", "bob", "carla", "dmitri", "felix", "helen", "ivan", "omar", "priya", "tina"]

# (the plan request, the changes of the environment's plan)
REQUESTS = [
    (PlanRequest(), []),
    (
        PlanRequest(prune=True, excludes=(Selector("assets"),)),
        [f'users["{name}"] disable' for name in USERS],
    ),
    (PlanRequest(prune=True, targets=(Selector("users", "ivan"),)), ['users["ivan"] disable']),
]


@pytest.mark.parametrize(("request_", "changes"), REQUESTS)
def test_the_plan_request_shapes_each_environments_plan(
    tmp_path: Path, request_: PlanRequest, changes: list[str]
) -> None:
    (tmp_path / "reconciler.yaml").write_text(ONE_ENVIRONMENT_PROJECT, encoding="utf-8")
    (tmp_path / "m.yaml").write_text(MANIFEST, encoding="utf-8")
    state, credentials = seeded("acme")
    environ = {
        "ACME_USER": credentials.helpdesk_username,
        "ACME_PASSWORD": credentials.helpdesk_password,
    }
    target = resolve(load_project(tmp_path / "reconciler.yaml"), "acme")
    prepared = prepare_all([target], environ, request_)
    runs = asyncio.run(plan_environments(prepared, request_, max_parallel=1, transport=asgi(state)))
    [run] = runs
    assert run.error is None and run.plan is not None
    assert [f"{c.address} {c.action.value}" for c in run.plan.changes] == changes
    assert run.plan.errors == ()
