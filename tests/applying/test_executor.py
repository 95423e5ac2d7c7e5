"""The Executor against scripted clients: order, concurrency, ids of created objects, the
first failure, lost create answers (a create whose answer is lost is tried three times in
all, each attempt logged), authentication failures, removals, and when a run's report is
ok."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from reconciler.applying.executor import RECREATE_ATTEMPTS, ApplyReport, Executor
from reconciler.errors import ApiError, AuthenticationError, OutcomeUnknown, TransportFailure
from reconciler.plans import Action, Change, Plan
from tests.applying.fakes import FakeClient, ListLog, change, create, gate, op, plan_of, ref


def run(plan: Plan, **kwargs: Any) -> ApplyReport:
    return asyncio.run(Executor(plan, **kwargs).run())


def lost(path: str = "/api/Asset") -> OutcomeUnknown:
    return OutcomeUnknown(None, "POST", path, "no answer (ReadError); may have happened")


# -- order and concurrency ----------------------------------------------------------------


def test_dependencies_run_first_and_get_the_created_id() -> None:
    hd = FakeClient({"co": [{"id": 7}]})
    company = create(
        "companies", "Acme", "co", op("co-notes", id=ref("companies", "Acme")), path="/api/Company"
    )
    user = change(
        "users",
        "ann",
        op("ann", "/api/UpdateUser", company=ref("companies", "Acme")),
        depends_on=['companies["Acme"]'],
    )
    report = run(plan_of(user, company), helpdesk=hd)  # listed out of order on purpose
    assert hd.tags() == ["co", "co-notes", "ann"]
    assert hd.calls[1].params["id"] == 7 and hd.calls[2].params["company"] == 7
    assert report.ok and sorted(report.done) == ['companies["Acme"]', 'users["ann"]']
    assert report.operations_sent == 3


def test_explicit_depends_on_without_a_ref_is_waited_for() -> None:
    held, wait = gate()
    hd = FakeClient({"first": [wait]})

    async def scenario() -> ApplyReport:
        plan = plan_of(
            change("companies", "A", op("first")),
            change("users", "u", op("second"), depends_on=['companies["A"]']),
        )
        task = asyncio.create_task(Executor(plan, helpdesk=hd).run())
        for _ in range(20):
            await asyncio.sleep(0)
        assert hd.tags() == ["first"]  # the dependent has not started
        held.set()
        return await task

    assert asyncio.run(scenario()).ok
    assert hd.tags() == ["first", "second"]


def test_independent_changes_run_concurrently() -> None:
    # Each call waits until all three are in flight at once: run one at a time, the
    # first would time out and the apply would fail.
    everyone: asyncio.Event | None = None

    async def together() -> str:
        assert everyone is not None
        if hd.in_flight == 3:
            everyone.set()
        await asyncio.wait_for(everyone.wait(), timeout=2)
        return "OK"

    hd = FakeClient({t: [together] for t in ("a", "b", "c")})

    async def scenario() -> ApplyReport:
        nonlocal everyone
        everyone = asyncio.Event()
        plan = plan_of(*(change("assets", k, op(k)) for k in ("a", "b", "c")))
        return await Executor(plan, helpdesk=hd).run()

    report = asyncio.run(scenario())
    assert report.ok, report.failed
    assert hd.max_in_flight == 3


def test_operations_of_one_change_run_in_order_one_at_a_time() -> None:
    hd = FakeClient()
    report = run(plan_of(change("users", "u", op("u1"), op("u2"), op("u3"))), helpdesk=hd)
    assert report.ok and hd.tags() == ["u1", "u2", "u3"] and hd.max_in_flight == 1


def test_each_operation_goes_to_its_service_with_the_api_prefix_removed() -> None:
    hd, ws = FakeClient(), FakeClient({"emp": [{"id": "e-1"}]})
    plan = plan_of(
        change("automation_rules", "102", op("rule", "/api/DisableRule/102", method="GET")),
        create("workspace.employees", "a@x.com", "emp", path="/api/employees", service="workspace"),
    )
    assert run(plan, helpdesk=hd, workspace=ws).ok
    assert [(c.method, c.path, c.write) for c in hd.calls] == [("GET", "/DisableRule/102", True)]
    assert [(c.method, c.path, c.idempotent) for c in ws.calls] == [("POST", "/employees", False)]


def test_a_service_that_is_not_configured_fails_the_change() -> None:
    report = run(
        plan_of(change("workspace.employees", "a@x.com", op("e", service="workspace"))),
        helpdesk=FakeClient(),
    )
    assert report.failed == [
        ('workspace.employees["a@x.com"]', "the workspace service is not configured")
    ]


def test_on_operation_is_called_once_per_operation() -> None:
    ticks: list[int] = []
    plan = plan_of(change("users", "u", op("1"), op("2")), change("assets", "a", op("3")))
    run(plan, helpdesk=FakeClient(), on_operation=lambda: ticks.append(1))
    assert len(ticks) == plan.operation_count == 3


# -- ids of created objects -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("answer", "expected"),
    [({"id": 41}, 41), (42, 42), ({"userId": 43}, 43), ("44", 44), ({"assetId": 45}, 45)],
)
def test_helpdesk_create_answers_give_the_id(answer: Any, expected: int) -> None:
    hd = FakeClient({"new": [answer]})
    plan = plan_of(
        create("users", "ann", "new", op("cf", id=ref("users", "ann")), path="/api/CreateUser")
    )
    assert run(plan, helpdesk=hd).ok
    assert hd.calls[1].params["id"] == expected


def test_workspace_create_answers_give_an_opaque_id() -> None:
    ws = FakeClient({"emp": [{"id": "9f3c0a", "email": "a@x.com"}]})
    plan = plan_of(
        create(
            "workspace.employees",
            "a@x.com",
            "emp",
            op(
                "put",
                "/api/employees",
                service="workspace",
                method="PUT",
                id=ref("workspace.employees", "a@x.com"),
            ),
            path="/api/employees",
            service="workspace",
        ),
    )
    assert run(plan, workspace=ws).ok
    assert ws.calls[1].params["id"] == "9f3c0a"


def test_refs_inside_lists_and_dicts_are_resolved() -> None:
    hd = FakeClient({"a1": [{"id": 1}], "a2": [2]})
    plan = plan_of(
        create("assets", "S1", "a1"),
        create("assets", "S2", "a2"),
        change(
            "tech_permissions",
            "Hardware",
            op(
                "t",
                ids=[ref("assets", "S1"), ref("assets", "S2")],
                nested={"first": ref("assets", "S1"), "plain": "x"},
            ),
        ),
    )
    assert run(plan, helpdesk=hd).ok
    final = hd.calls[-1].params
    assert final["ids"] == [1, 2] and final["nested"] == {"first": 1, "plain": "x"}


@pytest.mark.parametrize("answer", ["OK", {"ok": True}, None, True])
def test_a_helpdesk_create_answer_without_an_id_fails_the_change(answer: Any) -> None:
    hd, log = FakeClient({"new": [answer]}), ListLog()
    plan = plan_of(create("assets", "S1", "new", op("after", id=ref("assets", "S1"))))
    report = run(plan, helpdesk=hd, log=log)
    assert [a for a, _ in report.failed] == ['assets["S1"]']
    assert "id" in report.failed[0][1]
    assert hd.tags() == ["new"]
    # the create was sent: the log says so, and that its answer was of no use
    assert [(e["path"], e["outcome"]) for e in log.entries] == [("/api/Asset", "failed")]


@pytest.mark.parametrize("answer", ["OK", {"email": "a@x.com"}, None, [{"id": "x"}]])
def test_a_workspace_create_answer_without_an_id_fails_the_change(answer: Any) -> None:
    ws, log = FakeClient({"new": [answer]}), ListLog()
    plan = plan_of(
        create("workspace.employees", "a@x.com", "new", path="/api/employees", service="workspace")
    )
    report = run(plan, workspace=ws, log=log)
    assert report.failed == [
        ('workspace.employees["a@x.com"]', "POST /api/employees failed: the answer carries no id")
    ]
    assert [(e["path"], e["outcome"]) for e in log.entries] == [("/api/employees", "failed")]


# -- the first failure ----------------------------------------------------------------------


def test_a_failure_stops_new_operations_and_lets_those_in_flight_finish() -> None:
    held, wait = gate()

    async def fail_after_quick() -> Any:
        # `quick` has finished before this fails; `late` and `slow1` are still in flight.
        while "quick" not in hd.finished:
            await asyncio.sleep(0)
        return ApiError(400, "POST", "/api/UpdateCompany", "Company name is already taken")

    hd = FakeClient({"bad": [fail_after_quick], "late": [wait], "slow1": [wait]})
    log = ListLog()
    plan = plan_of(
        change("companies", "Quick", op("quick")),
        change("companies", "Bad", op("bad")),
        change("companies", "Late", op("late")),
        change("companies", "Slow", op("slow1"), op("slow2")),
        change("users", "needs-bad", op("nb"), depends_on=['companies["Bad"]']),
        change("users", "needs-late", op("nl"), depends_on=['companies["Late"]']),
        change("users", "needs-slow", op("ns"), depends_on=['companies["Slow"]']),
    )

    async def scenario() -> ApplyReport:
        task = asyncio.create_task(Executor(plan, helpdesk=hd, log=log).run())
        while "bad" not in hd.finished:
            await asyncio.sleep(0)
        held.set()  # what was in flight when `bad` failed may now finish
        return await task

    report = asyncio.run(scenario())
    assert not report.ok
    assert report.failed == [
        ('companies["Bad"]', "POST /api/UpdateCompany failed: 400 Company name is already taken")
    ]
    assert sorted(report.done) == ['companies["Late"]', 'companies["Quick"]']
    assert report.partial == ['companies["Slow"]']
    assert sorted(report.not_attempted) == [
        'users["needs-bad"]',
        'users["needs-late"]',  # its dependency succeeded, but the run was stopping
        'users["needs-slow"]',
    ]
    assert sorted(hd.tags()) == ["bad", "late", "quick", "slow1"]  # nothing new after `bad`
    outcomes = {(e["address"], e["operation"]): e["outcome"] for e in log.entries}
    assert outcomes == {
        ('companies["Quick"]', 0): "ok",
        ('companies["Bad"]', 0): "failed",
        ('companies["Late"]', 0): "ok",
        ('companies["Slow"]', 0): "ok",
    }
    bad = next(e for e in log.entries if e["outcome"] == "failed")
    assert bad["message"] == "Company name is already taken"


def test_a_failure_in_a_later_operation_leaves_the_change_failed_not_done() -> None:
    hd = FakeClient({"u2": [ApiError(400, "POST", "/api/SetCustomFieldForUser", "bad value")]})
    report = run(plan_of(change("users", "u", op("u1"), op("u2"), op("u3"))), helpdesk=hd)
    assert report.failed == [
        ('users["u"]', "POST /api/SetCustomFieldForUser failed: 400 bad value")
    ]
    assert report.done == [] and hd.tags() == ["u1", "u2"]


def test_dependents_of_a_failed_create_are_not_attempted() -> None:
    hd = FakeClient({"co": [ApiError(400, "POST", "/api/Company", "name required")]})
    plan = plan_of(
        create("companies", "Acme", "co", path="/api/Company"),
        create(
            "users",
            "ann",
            "ann",
            op("ann-cf", id=ref("users", "ann")),
            path="/api/CreateUser",
            depends_on=['companies["Acme"]'],
        ),
        create("assets", "S1", "s1", op("assign", userId=ref("users", "ann"))),
    )
    report = run(plan, helpdesk=hd)
    assert [a for a, _ in report.failed] == ['companies["Acme"]']
    assert sorted(report.not_attempted) == ['assets["S1"]', 'users["ann"]']
    assert hd.tags() == ["co"]


def test_transport_failures_are_failures_too() -> None:
    hd = FakeClient({"x": [TransportFailure("POST /api/UpdateAsset: no usable answer")]})
    report = run(plan_of(change("assets", "S1", op("x"))), helpdesk=hd)
    assert report.failed == [('assets["S1"]', "POST /api/UpdateAsset: no usable answer")]


def test_an_authentication_failure_stops_everything_at_once() -> None:
    """A 401/403 ends the run with its report: what was in flight finishes, nothing new
    starts (the client refuses every later call anyway), and the report says so."""
    held, wait = gate()
    hd = FakeClient(
        {
            "denied": [AuthenticationError(401, "POST", "/api/UpdateUser", "Unauthorized")],
            "slow1": [wait],
        }
    )
    plan = plan_of(
        change("users", "u", op("denied")),
        change("companies", "Slow", op("slow1"), op("slow2")),
        change("assets", "later", op("later"), depends_on=['companies["Slow"]']),
    )

    async def scenario() -> None:
        executor = Executor(plan, helpdesk=hd)
        running = asyncio.create_task(executor.run())
        for _ in range(50):
            await asyncio.sleep(0)
        held.set()  # the call in flight answers after the failure
        report = await asyncio.wait_for(running, timeout=5)
        assert sorted(hd.tags()) == ["denied", "slow1"]
        assert report.failed[0][0] == 'users["u"]' and "401" in report.failed[0][1]
        assert report.partial == ['companies["Slow"]']
        assert report.not_attempted == ['assets["later"]']
        assert not report.ok

    asyncio.run(scenario())


# -- creates whose answer was lost -----------------------------------------------------------


def test_a_lost_create_found_again_is_not_created_twice() -> None:
    hd = FakeClient({"new": [lost()]})
    located: list[str] = []

    async def locate(found: Change) -> Any:
        located.append(found.address)
        return 77

    log, ticks = ListLog(), []
    plan = plan_of(create("assets", "S1", "new", op("cf", id=ref("assets", "S1"))))
    report = run(plan, helpdesk=hd, locate=locate, log=log, on_operation=lambda: ticks.append(1))
    assert report.ok and report.recovered == 1
    assert len(ticks) == plan.operation_count  # the progress bar reaches its end
    assert hd.tags() == ["new", "cf"]  # one create only
    assert hd.calls[1].params["id"] == 77
    assert located == ['assets["S1"]']
    assert [e["outcome"] for e in log.entries] == ["unknown", "recovered", "ok"]
    assert log.entries[1]["created_id"] == 77


def test_a_lost_create_that_is_not_there_is_sent_again() -> None:
    hd = FakeClient({"new": [lost(), {"id": 5}]})

    async def locate(found: Change) -> Any:
        return None

    plan = plan_of(create("assets", "S1", "new", op("cf", id=ref("assets", "S1"))))
    report = run(plan, helpdesk=hd, locate=locate)
    assert report.ok and report.recovered == 0
    assert hd.tags() == ["new", "new", "cf"]
    assert hd.calls[2].params["id"] == 5


def test_a_create_lost_every_time_gives_up_after_a_few_attempts() -> None:
    hd = FakeClient({"new": [lost()]})
    located: list[str] = []

    async def locate(found: Change) -> Any:
        located.append(found.address)
        return None

    report = run(plan_of(create("assets", "S1", "new")), helpdesk=hd, locate=locate)
    assert [a for a, _ in report.failed] == ['assets["S1"]']
    assert "may have happened" in report.failed[0][1]
    assert hd.tags() == ["new"] * RECREATE_ATTEMPTS
    assert len(located) == RECREATE_ATTEMPTS  # looked for before every further attempt


def test_a_lost_create_is_not_repeated_once_the_run_is_stopping() -> None:
    async def lost_after_failure() -> Any:
        while "bad" not in hd.finished:
            await asyncio.sleep(0)
        return lost()

    hd = FakeClient({"new": [lost_after_failure], "bad": [ApiError(400, "POST", "/x", "no")]})

    async def locate(found: Change) -> Any:
        return None

    plan = plan_of(create("assets", "S1", "new"), change("companies", "A", op("bad")))
    report = run(plan, helpdesk=hd, locate=locate)
    assert sorted(a for a, _ in report.failed) == ['assets["S1"]', 'companies["A"]']
    assert hd.tags().count("new") == 1


def test_a_lost_create_failing_to_be_located_fails_the_change() -> None:
    hd = FakeClient({"new": [lost()]})

    async def locate(found: Change) -> Any:
        raise TransportFailure("GET /api/Assets: no usable answer after 4 attempts")

    report = run(plan_of(create("assets", "S1", "new")), helpdesk=hd, locate=locate)
    assert report.failed == [('assets["S1"]', "GET /api/Assets: no usable answer after 4 attempts")]
    assert hd.tags() == ["new"]


def test_a_lost_update_is_sent_again_not_taken_as_done_because_its_object_exists() -> None:
    # The locator finds objects by their key: asked about an update, it would find the
    # object that was there all along and count the update as made.
    hd = FakeClient({"rename": [lost("/api/UpdateAsset"), "OK"]})
    located: list[str] = []

    async def locate(found: Change) -> Any:
        located.append(found.address)
        return 77

    log = ListLog()
    plan = plan_of(change("assets", "S1", op("rename", "/api/UpdateAsset", idempotent=False)))
    report = run(plan, helpdesk=hd, locate=locate, log=log)
    assert report == ApplyReport(done=['assets["S1"]'], operations_sent=1, total=1)
    assert hd.tags() == ["rename", "rename"]
    assert located == []
    assert [(e["outcome"], e.get("created_id")) for e in log.entries] == [
        ("unknown", None),
        ("ok", None),
    ]


# -- removals -------------------------------------------------------------------------------


def test_removals_run_after_every_forward_change_in_reverse_kind_order() -> None:
    two_in_flight: asyncio.Event | None = None

    async def both_assets() -> str:
        # The two asset removals are concurrent: each waits for the other.
        assert two_in_flight is not None
        if hd.in_flight == 2:
            two_in_flight.set()
        await asyncio.wait_for(two_in_flight.wait(), timeout=2)
        return "OK"

    hd, ws = FakeClient({"rm-a1": [both_assets], "rm-a2": [both_assets]}), FakeClient()
    plan = plan_of(
        change("users", "gone", op("rm-user"), action=Action.disable, removal=True),
        change("tech_permissions", "Hardware", op("rm-perm"), removal=True),
        change("assets", "A1", op("rm-a1"), action=Action.disable, removal=True),
        change("assets", "A2", op("rm-a2"), action=Action.disable, removal=True),
        change(
            "workspace.employees",
            "x@y.com",
            op("rm-emp", service="workspace"),
            action=Action.delete,
            removal=True,
        ),
        change("companies", "Acme", op("fwd-company")),
        change("automation_rules", "101", op("fwd-rule")),
    )

    async def scenario() -> ApplyReport:
        nonlocal two_in_flight
        two_in_flight = asyncio.Event()
        return await Executor(plan, helpdesk=hd, workspace=ws).run()

    report = asyncio.run(scenario())
    assert report.ok, report.failed
    order = hd.tags()
    assert sorted(order[:2]) == ["fwd-company", "fwd-rule"]
    assert sorted(order[2:4]) == ["rm-a1", "rm-a2"]
    assert order[4:] == ["rm-perm", "rm-user"]
    assert ws.tags() == ["rm-emp"]
    # the employee's DELETE (the last kind) came before every helpdesk removal
    assert report.done.index('workspace.employees["x@y.com"]') < report.done.index('assets["A1"]')


def test_removals_are_not_attempted_after_a_failure() -> None:
    hd = FakeClient({"fwd": [ApiError(400, "POST", "/api/UpdateCompany", "no")]})
    plan = plan_of(
        change("companies", "A", op("fwd")),
        change("users", "gone", op("rm"), action=Action.disable, removal=True),
    )
    report = run(plan, helpdesk=hd)
    assert report.not_attempted == ['users["gone"]'] and hd.tags() == ["fwd"]


def test_an_empty_plan_does_nothing() -> None:
    hd = FakeClient()
    report = run(plan_of(), helpdesk=hd)
    assert report.ok and report.operations_sent == 0 and hd.calls == []


def test_removal_phases_are_the_order_even_against_a_declared_dependency() -> None:
    """A removal that names a removal of a kind run later must not wait for it forever:
    removals run kind by kind in reverse order, and that order is all they follow."""
    hd = FakeClient({})
    plan = plan_of(
        change("users", "u", op("disable-user"), action=Action.disable, removal=True),
        change(
            "assets",
            "a",
            op("disable-asset"),
            action=Action.disable,
            removal=True,
            depends_on=['users["u"]'],  # users' removals run after assets' removals
        ),
    )

    async def scenario() -> ApplyReport:
        return await asyncio.wait_for(Executor(plan, helpdesk=hd).run(), timeout=5)

    report = asyncio.run(scenario())
    assert report.ok
    assert hd.tags() == ["disable-asset", "disable-user"]


def test_a_recovered_create_counts_as_one_operation_sent() -> None:
    hd = FakeClient(
        {"co": [{"id": 7}], "make": [OutcomeUnknown(None, "POST", "/api/Asset", "dropped")]}
    )
    plan = plan_of(
        create("companies", "Acme", "co", path="/api/Company"),
        create("assets", "SN-1", "make", depends_on=['companies["Acme"]']),
    )

    async def found(_: Change) -> Any:
        return 42

    report = asyncio.run(Executor(plan, helpdesk=hd, locate=found).run())
    assert report == ApplyReport(
        done=['companies["Acme"]', 'assets["SN-1"]'], operations_sent=2, recovered=1, total=2
    )


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


def test_a_report_is_ok_only_when_nothing_failed_stopped_partway_waits_or_was_interrupted() -> None:
    assert ApplyReport().ok
    assert not ApplyReport(interrupted=True).ok
    assert not ApplyReport(failed=[("a", "b")]).ok
    assert not ApplyReport(partial=["a"]).ok
    assert not ApplyReport(not_attempted=["a"]).ok
