"""The apply log's entries (applying/executor.py) whole, one per operation and outcome:
what a reader of the log relies on after an apply went wrong; and the report of a run
with every ending (done, failed with the API's words, partial, not attempted)."""

from __future__ import annotations

import asyncio
import re
from typing import Any

from reconciler.applying.executor import ApplyReport, Executor
from reconciler.errors import ApiError, OutcomeUnknown
from reconciler.plans import Action, Change
from tests.applying.fakes import FakeClient, ListLog, change, create, op, plan_of, ref

TIME = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$")


def entries(log: ListLog) -> list[dict[str, Any]]:
    """The entries without their time and duration, each checked for its form."""
    out = []
    for entry in log.entries:
        assert TIME.match(entry.pop("time"))
        ms = entry.pop("ms")
        assert isinstance(ms, float) and 0 <= ms < 60_000
        out.append(entry)
    return out


def test_every_outcome_is_logged_whole() -> None:
    lost = OutcomeUnknown(None, "POST", "/api/Asset", "no answer; may have happened")
    hd = FakeClient({"new": [lost], "cf": ["OK"], "bad": [ApiError(400, "POST", "/x", " no ")]})
    ws = FakeClient({"emp": [{"id": "e-1"}]})

    async def locate(found: Change) -> Any:
        return 77

    asset = create("assets", "S1", "new", op("cf", "/api/UpdateAsset", id=ref("assets", "S1")))
    employee = create("employees", "e@x", "emp", path="/api/employees", service="workspace")
    plan = plan_of(asset, employee)
    log = ListLog()
    report = asyncio.run(
        Executor(plan, helpdesk=hd, workspace=ws, locate=locate, log=log, parallel_changes=1).run()
    )
    assert report.ok and (report.operations_sent, report.recovered, report.total) == (3, 1, 2)
    base = {"address": 'assets["S1"]', "action": "create", "method": "POST"}
    assert entries(log) == [
        {**base, "operation": 0, "path": "/api/Asset", "outcome": "unknown",
         "message": "POST /api/Asset failed: no answer; may have happened"},
        {**base, "operation": 0, "path": "/api/Asset", "outcome": "recovered", "created_id": 77},
        {**base, "operation": 1, "path": "/api/UpdateAsset", "outcome": "ok"},
        {"address": 'employees["e@x"]', "action": "create", "operation": 0, "method": "POST",
         "path": "/api/employees", "outcome": "ok", "created_id": "e-1"},
    ]  # fmt: skip
    assert ws.calls[0].path == "/employees" and ws.calls[0].idempotent is False


def test_a_failed_operation_is_logged_with_the_apis_words_and_the_run_reported() -> None:
    hd = FakeClient({"bad": [ApiError(400, "PUT", "/api/X", "  field is wrong  ")]})
    plan = plan_of(
        change("companies", "A", op("ok1"), op("bad", "/api/X", method="PUT")),
        change("users", "u", op("later"), depends_on=['companies["A"]'], action=Action.enable),
    )
    log = ListLog()
    report = asyncio.run(Executor(plan, helpdesk=hd, log=log).run())
    assert report == ApplyReport(
        done=[],
        failed=[('companies["A"]', "PUT /api/X failed: 400 field is wrong")],
        partial=[],
        not_attempted=['users["u"]'],
        operations_sent=1,
        total=2,
    )
    assert not report.ok
    assert entries(log) == [
        {"address": 'companies["A"]', "action": "update", "operation": 0, "method": "POST",
         "path": "/api/UpdateCompany", "outcome": "ok"},
        {"address": 'companies["A"]', "action": "update", "operation": 1, "method": "PUT",
         "path": "/api/X", "outcome": "failed", "message": "field is wrong"},
    ]  # fmt: skip


def test_what_makes_a_report_not_ok() -> None:
    assert ApplyReport().ok
    assert not ApplyReport(interrupted=True).ok
    assert not ApplyReport(failed=[("a", "b")]).ok
    assert not ApplyReport(partial=["a"]).ok
    assert not ApplyReport(not_attempted=["a"]).ok
