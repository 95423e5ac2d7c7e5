"""What the executor hands each client: a workspace operation without parameters goes
without a body (a JSON `{}` on a DELETE is a body the API did not ask for), a helpdesk
operation always with its form fields, and both as writes."""

from __future__ import annotations

import asyncio
from typing import Any

from reconciler.applying.executor import Executor
from reconciler.plans import Operation
from tests.applying.fakes import change, plan_of


class Recorder:
    def __init__(self) -> None:
        self.sent: list[tuple[str, str, Any, bool]] = []

    async def request(self, method: str, path: str, body: Any = None, **how: Any) -> Any:
        self.sent.append((method, path, body, how["write"]))
        return "OK"


def test_a_workspace_operation_without_parameters_is_sent_without_a_body() -> None:
    helpdesk, workspace = Recorder(), Recorder()
    gone = Operation("workspace", "DELETE", "/employees/12", {})
    title = Operation("workspace", "PATCH", "/employees/13", {"title": "CTO"})
    plan = plan_of(
        change("employees", "amy@acme.com", gone),
        change("employees", "bob@acme.com", title),
        change("companies", "Acme", Operation("helpdesk", "POST", "/api/UpdateCompany", {})),
    )
    asyncio.run(Executor(plan, helpdesk=helpdesk, workspace=workspace).run())
    assert sorted(workspace.sent) == [
        ("DELETE", "/employees/12", None, True),
        ("PATCH", "/employees/13", {"title": "CTO"}, True),
    ]
    assert helpdesk.sent == [("POST", "/UpdateCompany", {}, True)]
