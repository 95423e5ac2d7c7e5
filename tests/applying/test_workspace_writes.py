"""The workspace's operations as the executor sends them (applying/executor.py): each a
write (a failure then says the write may or may not have happened), a create not retried
blindly, an update idempotent, in the plan's order, the created id kept for the report."""

from __future__ import annotations

import asyncio

from reconciler.applying.executor import Executor
from tests.applying.fakes import FakeClient, change, create, op, plan_of


def test_workspace_operations_are_sent_as_writes() -> None:
    ws = FakeClient({"new": [{"id": "e-1"}]})
    plan = plan_of(
        create("workspace.employees", "a@x.com", "new", path="/employees", service="workspace"),
        change(
            "workspace.employees",
            "b@x.com",
            op("upd", "/employees/7", service="workspace", method="PATCH"),
        ),
    )
    report = asyncio.run(Executor(plan, workspace=ws, parallel_changes=1).run())
    assert report.ok and report.operations_sent == 2
    assert [(c.method, c.path, c.write, c.idempotent) for c in ws.calls] == [
        ("POST", "/employees", True, False),
        ("PATCH", "/employees/7", True, True),
    ]
