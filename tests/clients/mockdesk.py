"""A helpdesk client on an in-process `httpx.MockTransport` that records every request and
answers it as a plain helpdesk would: the authorization as an administrator's, any
other call `{"id": 7}`. Shared by the tests of the clients' per-request work."""

from __future__ import annotations

import httpx

from reconciler.clients import BasicAuth, HelpdeskClient, RateLimits

BASE = "http://h.invalid/helpdesk/"


def recording_helpdesk(seen: list[httpx.Request]) -> HelpdeskClient:
    """A client of `BASE` (admin, no rate limit) whose requests are appended to `seen`."""

    def answer(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        if request.url.path.endswith("/Authorization"):
            return httpx.Response(200, json={"UserID": 1, "IsAdmin": True})
        return httpx.Response(200, json={"id": 7})

    return HelpdeskClient(
        BASE,
        BasicAuth("admin", "secret"),
        limits=RateLimits(general=0, search=0),
        transport=httpx.MockTransport(answer),
    )
