"""A change starts as soon as ITS dependencies are done: not when every change of the
kinds before it is (no barrier per kind or per level of the graph), and never before all
of them are; a change waiting for its dependencies holds no slot of `--parallelism`.
(Issue 25: the speed-up of `--parallelism 10` depends on no slot waiting for a tail.)"""

from __future__ import annotations

import asyncio

from reconciler.applying.executor import ApplyReport, Executor
from reconciler.errors import ApiError
from reconciler.plans import Plan
from tests.applying.fakes import FakeClient, change, gate, op, plan_of


async def settle() -> None:
    for _ in range(50):
        await asyncio.sleep(0)


def companies_users_assets() -> Plan:
    # Two companies; ann needs only B; the laptop needs both A and ann.
    return plan_of(
        change("companies", "A", op("A")),
        change("companies", "B", op("B")),
        change("users", "ann", op("ann"), depends_on=['companies["B"]']),
        change("assets", "laptop", op("laptop"), depends_on=['companies["A"]', 'users["ann"]']),
    )


def test_a_change_starts_when_its_own_dependencies_are_done_not_its_kind() -> None:
    held, wait = gate()
    hd = FakeClient({"A": [wait]})

    async def scenario() -> ApplyReport:
        task = asyncio.create_task(Executor(companies_users_assets(), helpdesk=hd).run())
        await settle()
        # Company A is still in flight: ann (who needs B only) went anyway; the laptop,
        # which needs A too, waits.
        assert set(hd.tags()) == {"A", "B", "ann"}
        assert "A" not in hd.finished
        held.set()
        return await task

    report = asyncio.run(scenario())
    assert report.ok
    assert hd.tags()[-1] == "laptop"
    assert hd.finished.index("A") < hd.tags().index("laptop")


def test_a_change_waits_for_every_one_of_its_dependencies() -> None:
    held, wait = gate()
    hd = FakeClient({"ann": [wait]})

    async def scenario() -> ApplyReport:
        task = asyncio.create_task(Executor(companies_users_assets(), helpdesk=hd).run())
        await settle()
        # A is done, but the laptop also needs ann, still in flight.
        assert "A" in hd.finished and "laptop" not in hd.tags()
        held.set()
        return await task

    assert asyncio.run(scenario()).ok
    assert hd.tags()[-1] == "laptop"


def test_a_change_waiting_for_its_dependencies_holds_no_slot() -> None:
    held, wait = gate()
    hd = FakeClient({"A": [wait]})
    plan = plan_of(
        change("companies", "A", op("A")),
        change("users", "u1", op("u1"), depends_on=['companies["A"]']),
        change("users", "u2", op("u2"), depends_on=['companies["A"]']),
        change("companies", "B", op("B")),
        change("companies", "C", op("C")),
    )

    async def scenario() -> ApplyReport:
        task = asyncio.create_task(Executor(plan, helpdesk=hd, parallel_changes=2).run())
        await settle()
        # Two slots: A holds one while it is in flight; u1 and u2 wait for A without a
        # slot, so B and then C go through the other.
        assert hd.tags() == ["A", "B", "C"]
        held.set()
        return await task

    report = asyncio.run(scenario())
    assert report.ok
    assert sorted(hd.tags()[3:]) == ["u1", "u2"]
    assert hd.max_in_flight <= 2


def test_a_failure_leaves_the_dependants_of_the_failed_change_not_attempted() -> None:
    hd = FakeClient({"B": [ApiError(400, "POST", "/api/UpdateCompany", "no")]})
    report = asyncio.run(Executor(companies_users_assets(), helpdesk=hd).run())
    assert report.failed and report.failed[0][0] == 'companies["B"]'
    assert "ann" not in hd.tags() and "laptop" not in hd.tags()
    assert set(report.not_attempted) == {'users["ann"]', 'assets["laptop"]'}
