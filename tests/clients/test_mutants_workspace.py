"""What a client shows of itself (in a log, a traceback, a debugger): its API address and
how it authenticates, the secret masked, and whether it is read-only."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

import pytest

from reconciler.clients import BasicAuth, BearerAuth, HelpdeskClient, WorkspaceClient
from reconciler.clients.base import ClientBase


def helpdesk_basic(read_only: bool) -> ClientBase:
    return HelpdeskClient(
        "https://hd.example.com/helpdesk", BasicAuth("admin", "pw-1"), read_only=read_only
    )


def helpdesk_bearer(read_only: bool) -> ClientBase:
    return HelpdeskClient("https://hd.example.com", BearerAuth("tok-2"), read_only=read_only)


def workspace(read_only: bool) -> ClientBase:
    return WorkspaceClient("https://ws.example.com/", "key-3", read_only=read_only)


@pytest.mark.parametrize(
    ("make", "read_only", "shown"),
    [
        (
            helpdesk_basic,
            True,
            "HelpdeskClient('https://hd.example.com/helpdesk/api/', "
            "BasicAuth(username='admin', password=***), read_only)",
        ),
        (
            helpdesk_bearer,
            False,
            "HelpdeskClient('https://hd.example.com/api/', BearerAuth(token=***))",
        ),
        (workspace, True, "WorkspaceClient('https://ws.example.com/api/', ApiKey(***), read_only)"),
        (workspace, False, "WorkspaceClient('https://ws.example.com/api/', ApiKey(***))"),
    ],
    ids=["helpdesk-read-only", "helpdesk", "workspace-read-only", "workspace"],
)
def test_a_client_shows_its_address_its_masked_auth_and_read_only(
    make: Callable[[bool], ClientBase], read_only: bool, shown: str
) -> None:
    async def main() -> str:
        async with make(read_only) as client:
            return repr(client)

    assert asyncio.run(main()) == shown
