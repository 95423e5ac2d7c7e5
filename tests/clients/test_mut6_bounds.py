"""The bound of the requests a client has in flight (`apply --parallelism` reaches it):
below one refused with the whole message, whichever client; one accepted."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import httpx
import pytest

from reconciler.clients import BasicAuth, HelpdeskClient, WorkspaceClient

NOWHERE = httpx.MockTransport(lambda request: httpx.Response(599))


def helpdesk(concurrency: int) -> Any:
    return HelpdeskClient(
        "http://h.invalid/helpdesk",
        BasicAuth("admin", "secret"),
        transport=NOWHERE,
        max_concurrency=concurrency,
    )


def workspace(concurrency: int) -> Any:
    return WorkspaceClient(
        "http://w.invalid/workspace", "key", transport=NOWHERE, max_concurrency=concurrency
    )


@pytest.mark.parametrize("make", [helpdesk, workspace], ids=["helpdesk", "workspace"])
@pytest.mark.parametrize("concurrency", [0, -1])
def test_fewer_than_one_request_in_flight_is_refused(
    make: Callable[[int], Any], concurrency: int
) -> None:
    async def build() -> None:
        make(concurrency)

    with pytest.raises(ValueError) as refused:
        asyncio.run(build())
    assert str(refused.value) == "max_concurrency must be at least 1"


@pytest.mark.parametrize("make", [helpdesk, workspace], ids=["helpdesk", "workspace"])
def test_one_request_in_flight_is_accepted(make: Callable[[int], Any]) -> None:
    async def build() -> None:
        async with make(1):
            pass

    asyncio.run(build())
