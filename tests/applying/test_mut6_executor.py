"""The executor's limits at their boundaries, in figures a user reads in the docs and the
report: a create whose answer is lost is tried three times in all (lost twice, the third
answer is used; lost three times, it fails, each attempt logged); `parallel_changes`
bounds the changes in progress at once, below one taken as one."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from reconciler.applying.executor import ApplyReport, Executor
from reconciler.errors import OutcomeUnknown
from reconciler.plans import Change, Plan
from tests.applying.fakes import FakeClient, ListLog, change, create, op, plan_of


def lost() -> OutcomeUnknown:
    return OutcomeUnknown(None, "POST", "/api/Asset", "no answer (ReadError); may have happened")


async def nowhere(found: Change) -> Any:
    return None


def outcomes(log: ListLog) -> list[tuple[str, int, str]]:
    return [(e["address"], e["operation"], e["outcome"]) for e in log.entries]


def test_a_create_lost_twice_is_made_by_its_third_attempt() -> None:
    hd = FakeClient({"new": [lost(), lost(), {"id": 9}]})
    log = ListLog()
    plan = plan_of(create("assets", "S1", "new"))
    report = asyncio.run(Executor(plan, helpdesk=hd, locate=nowhere, log=log).run())
    assert (report.ok, report.done, report.operations_sent) == (True, ['assets["S1"]'], 1)
    assert hd.tags() == ["new", "new", "new"]
    assert outcomes(log) == [
        ('assets["S1"]', 0, "unknown"),
        ('assets["S1"]', 0, "unknown"),
        ('assets["S1"]', 0, "ok"),
    ]


def test_a_create_lost_three_times_fails_after_three_attempts() -> None:
    hd = FakeClient({"new": [lost(), lost(), lost(), {"id": 9}]})
    log = ListLog()
    plan = plan_of(create("assets", "S1", "new"))
    report = asyncio.run(Executor(plan, helpdesk=hd, locate=nowhere, log=log).run())
    assert report.failed == [
        ('assets["S1"]', "POST /api/Asset failed: no answer (ReadError); may have happened")
    ]
    assert (report.done, report.operations_sent) == ([], 0)
    assert hd.tags() == ["new", "new", "new"]
    assert outcomes(log) == [('assets["S1"]', 0, "unknown")] * 3


# (parallel_changes, the most changes in progress at once, of five independent ones)
@pytest.mark.parametrize(
    ("parallel", "most"), [(-1, 1), (0, 1), (1, 1), (2, 2), (4, 4), (5, 5), (6, 5)]
)
def test_parallel_changes_bounds_the_changes_in_progress(parallel: int, most: int) -> None:
    hd = FakeClient()
    plan: Plan = plan_of(*(change("assets", k, op(k)) for k in "abcde"))
    report: ApplyReport = asyncio.run(Executor(plan, helpdesk=hd, parallel_changes=parallel).run())
    assert report.ok and sorted(report.done) == [f'assets["{k}"]' for k in "abcde"]
    assert hd.max_in_flight == most
