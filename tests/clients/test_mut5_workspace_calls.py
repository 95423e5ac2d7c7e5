"""Each call of the workspace client (clients/workspace.py) as it goes on the wire: the
whole request line, the body of a write, and what the call gives back; an opaque id quoted
as one path segment."""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from typing import Any

import httpx
import pytest

from reconciler.clients import WorkspaceClient
from tests.clients.test_requests import Recorder

pytestmark = pytest.mark.anyio

Call = Callable[[WorkspaceClient], Awaitable[Any]]
ANN = {"id": "e/1 2", "email": "ann@example.com"}


@pytest.mark.parametrize(
    ("call", "sent", "body", "given"),
    [
        (lambda ws: ws.employees(), "GET /people/api/employees", None, [ANN]),
        (lambda ws: ws.employee("e/1 2"), "GET /people/api/employees/e%2F1%202", None, ANN),
        (lambda ws: ws.employee(7), "GET /people/api/employees/7", None, ANN),
        (lambda ws: ws.create_employee({"email": "ann@example.com"}),
         "POST /people/api/employees", {"email": "ann@example.com"}, ANN),
        (lambda ws: ws.update_employee("e/1 2", {"email": "ann@example.com"}),
         "PUT /people/api/employees/e%2F1%202", {"email": "ann@example.com"}, ANN),
        (lambda ws: ws.delete_employee(7), "DELETE /people/api/employees/7", None, None),
    ],
)  # fmt: skip
async def test_each_call_on_the_wire_and_what_it_gives(
    call: Call, sent: str, body: Any, given: Any
) -> None:
    answer: Any = {"items": [ANN]} if sent.endswith("employees") and body is None else ANN
    recorder = Recorder(answer=answer)
    transport = httpx.MockTransport(recorder)
    async with WorkspaceClient("https://ws.example.com/people", "k3y", transport=transport) as ws:
        result = await call(ws)
    assert result == given
    [request] = recorder.requests
    assert f"{request.method} {request.url.raw_path.decode()}" == sent
    assert request.headers["x-api-key"] == "k3y"
    assert (json.loads(request.content) if request.content else None) == body
