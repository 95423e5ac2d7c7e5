"""A helpdesk create whose answer carries no id (applying/executor.py): the object may
exist, but nothing that names it can be sent; the change fails with the call and the
answer named, the changes that need it are not attempted, and the log says so."""

from __future__ import annotations

import asyncio

from reconciler.applying.executor import ApplyReport, Executor
from tests.applying.fakes import FakeClient, ListLog, change, create, op, plan_of, ref


def test_a_create_answered_without_an_id_fails_naming_the_call() -> None:
    hd = FakeClient({"new": [{"Result": "ok"}]})
    plan = plan_of(
        create("assets", "S1", "new", op("cf", "/api/UpdateAsset", id=ref("assets", "S1"))),
        change(
            "users",
            "ann",
            op("assign", "/api/UpdateUser", asset=ref("assets", "S1")),
            depends_on=['assets["S1"]'],
        ),
    )
    log = ListLog()
    report = asyncio.run(Executor(plan, helpdesk=hd, log=log, parallel_changes=1).run())
    message = (
        'POST /api/Asset failed: the answer carries no id of the created object: {"Result": "ok"}'
    )
    assert report == ApplyReport(
        failed=[('assets["S1"]', message)],
        not_attempted=['users["ann"]'],
        operations_sent=1,
        total=2,
    )
    assert hd.tags() == ["new"]
    assert [{k: v for k, v in e.items() if k not in ("time", "ms")} for e in log.entries] == [
        {
            "address": 'assets["S1"]',
            "action": "create",
            "operation": 0,
            "method": "POST",
            "path": "/api/Asset",
            "outcome": "failed",
            "message": message.removeprefix("POST /api/Asset failed: "),
        }
    ]
