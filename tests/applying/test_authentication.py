"""A rejected account sends exactly one request (issue 10): wrong credentials are answered
401 by `Authorization`; an account that is not an administrator is refused on that same
answer, before any read (the reads reconciler needs are for administrators)."""

from __future__ import annotations

import asyncio

import pytest

from reconciler.clients.auth import Secret
from reconciler.clients.connection import Connection, HelpdeskConnection, RateSettings
from reconciler.errors import AuthenticationError
from reconciler.manifest.loader import load_manifests
from reconciler.plans.addresses import Selector
from reconciler.session.workflow import read_and_plan
from tests.applying.inprocess import EXAMPLE, asgi, seeded

HELPDESK_ONLY = [Selector("workspace.employees")]


def bearer(token: str) -> Connection:
    return Connection(
        HelpdeskConnection("http://127.0.0.1/helpdesk", token=Secret(token)),
        None,
        RateSettings(0, 0),
    )


def requests_made(state: object) -> list[tuple[str, int]]:
    return [(r["path"], r["status"]) for r in state.requests]  # type: ignore[attr-defined]


@pytest.mark.parametrize("who", ["technician", "wrong token"])
def test_a_rejected_token_sends_one_request(who: str) -> None:
    state, _ = seeded("acme")
    technician = next(
        u
        for u in state.store.rows("users")
        if u["is_tech"] and not u["is_admin"] and not u["disabled"]
    )
    token = technician["token"] if who == "technician" else "0" * 32
    desired = load_manifests([EXAMPLE], env={})
    with pytest.raises(AuthenticationError) as refused:
        asyncio.run(
            read_and_plan(desired, bearer(token), transport=asgi(state), excludes=HELPDESK_ONLY)
        )
    status = 403 if who == "technician" else 401
    assert requests_made(state) == [("/helpdesk/api/Authorization", 200 if status == 403 else 401)]
    assert refused.value.status == status
    said = {
        "technician": f"403 the helpdesk account '{technician['username']}' is not an "
        "administrator: reconciler needs an administrator's token (or username and password)",
        "wrong token": "401 Invalid username, password or token",
    }[who]
    assert str(refused.value) == f"POST /api/Authorization failed: {said}"
    assert token not in str(refused.value)
