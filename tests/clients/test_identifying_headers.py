"""Every request says what it is and what it wants back: `Accept: application/json` (a
helpdesk answers XML to a client that does not ask for JSON) and a `User-Agent` naming
this tool and its version (what a service's administrator sees in their logs); and a
client closed at the end of its `async with` sends nothing more."""

from __future__ import annotations

import pytest

from reconciler import __version__
from tests.clients.test_requests import Recorder, mock_client

pytestmark = pytest.mark.anyio


async def test_every_request_asks_for_json_and_names_the_tool() -> None:
    recorder = Recorder(answer={"id": 3})
    async with mock_client("http://h", recorder) as client:
        await client.request("GET", "Tickets", {}, write=False)
    assert len(recorder.requests) == 2  # the authorization, then the call
    for request in recorder.requests:
        assert request.headers["accept"] == "application/json"
        assert request.headers["user-agent"] == f"reconciler/{__version__}"


async def test_a_client_closed_at_the_end_of_its_block_sends_nothing_more() -> None:
    recorder = Recorder(answer={"id": 3})
    async with mock_client("http://h", recorder) as client:
        await client.request("GET", "Tickets", {}, write=False)
    with pytest.raises(RuntimeError) as closed:
        await client.request("GET", "Tickets", {}, write=False)
    # httpx's own refusal (its words are its own, not ours to pin): nothing of ours wraps it.
    assert type(closed.value) is RuntimeError
    assert len(recorder.requests) == 2
