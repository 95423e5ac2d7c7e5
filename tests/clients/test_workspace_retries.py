"""The workspace client retries what can safely be sent again: a read, or a write the
caller does not say is a create, whose answer was lost is sent again; a create (not
idempotent) whose answer was lost is an unknown outcome, never sent twice."""

from __future__ import annotations

import httpx
import pytest

from reconciler.clients import WorkspaceClient
from reconciler.errors import OutcomeUnknown
from tests.clients.conftest import Sleeper, fast_retry

pytestmark = pytest.mark.anyio


def dropping_once() -> tuple[httpx.MockTransport, list[str]]:
    seen: list[str] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(f"{request.method} {request.url.path}")
        if len(seen) == 1:
            raise httpx.ReadError("injected", request=request)
        return httpx.Response(200, json={"id": "e1"})

    return httpx.MockTransport(handler), seen


def client(transport: httpx.MockTransport, sleeper: Sleeper) -> WorkspaceClient:
    return WorkspaceClient("http://w", "key", retry=fast_retry(sleeper), transport=transport)


@pytest.mark.parametrize(
    ("method", "write"), [("GET", False), ("PATCH", True)], ids=["read", "update"]
)
async def test_a_request_whose_answer_was_lost_is_sent_again(
    method: str, write: bool, sleeper: Sleeper
) -> None:
    transport, seen = dropping_once()
    async with client(transport, sleeper) as workspace:
        assert await workspace.request(method, "employees/e1", None, write=write) == {"id": "e1"}
    assert seen == [f"{method} /api/employees/e1"] * 2


async def test_a_create_whose_answer_was_lost_is_not_sent_again(sleeper: Sleeper) -> None:
    transport, seen = dropping_once()
    async with client(transport, sleeper) as workspace:
        with pytest.raises(OutcomeUnknown) as unknown:
            await workspace.request("POST", "employees", {"a": 1}, write=True, idempotent=False)
    assert str(unknown.value) == (
        "POST /api/employees failed: no answer (ReadError: injected); the write may or may not "
        "have happened: re-read before trying again"
    )
    assert seen == ["POST /api/employees"]
