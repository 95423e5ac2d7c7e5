"""The steps around the planner (run/workflow.py), whole messages: an account that is
not an administrator is refused on its `Authorization` answer, naming it; manifests whose
services are both unconfigured get one line per service, each naming its variables."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from reconciler.clients import BasicAuth, BearerAuth
from reconciler.clients.auth import Secret
from reconciler.clients.connection import Connection, HelpdeskConnection, WorkspaceConnection
from reconciler.errors import AuthenticationError, UsageError
from reconciler.manifest import DesiredState
from reconciler.manifest.models import Company, Department, Manifest
from reconciler.plans.addresses import Selector
from reconciler.run.workflow import (
    check_services,
    helpdesk_auth,
    open_clients,
    read_and_plan,
    require_administrator,
)
from tests.applying.inprocess import asgi, connection, seeded

NEEDS = (
    "is not an administrator: reconciler needs an administrator's token (or username and password)"
)


@pytest.mark.parametrize(
    ("caller", "who"),
    [
        ({"IsAdmin": False, "Username": "tech1"}, "the helpdesk account 'tech1'"),
        ({"IsAdmin": False, "Username": None}, "the helpdesk account"),
        ({"IsAdmin": False}, "the helpdesk account"),
    ],
)
def test_a_technician_is_refused_naming_the_account(caller: dict[str, Any], who: str) -> None:
    with pytest.raises(AuthenticationError) as refused:
        require_administrator(caller)
    assert (refused.value.status, refused.value.method) == (403, "POST")
    assert str(refused.value) == f"POST /api/Authorization failed: 403 {who} {NEEDS}"


@pytest.mark.parametrize("caller", [{"IsAdmin": True, "Username": "admin"}, {}])
def test_an_administrator_or_an_answer_that_does_not_say_passes(caller: dict[str, Any]) -> None:
    require_administrator(caller)


def test_both_services_unconfigured_is_one_line_each() -> None:
    manifest = Manifest(companies=[Company(name="Acme")], departments=[Department(name="IT")])
    with pytest.raises(UsageError) as refused:
        check_services(DesiredState.from_manifest(manifest), Connection(None, None))
    assert str(refused.value) == (
        "the manifests manage companies, departments, but the helpdesk service is not "
        "configured: set HELPDESK_URL and HELPDESK_TOKEN (or HELPDESK_USERNAME and "
        "HELPDESK_PASSWORD), or leave them out with --exclude companies --exclude departments"
    )
    left = [Selector("companies")]
    with pytest.raises(UsageError) as refused:
        check_services(DesiredState.from_manifest(manifest), Connection(None, None), left)
    assert str(refused.value).endswith("or leave it out with --exclude departments")


def test_the_helpdesk_is_signed_in_to_with_a_token_else_a_password() -> None:
    token = HelpdeskConnection("https://h.example.com", token=Secret("t"))
    assert isinstance(helpdesk_auth(token), BearerAuth)
    password = HelpdeskConnection("https://h.example.com", username="u", password=Secret("p"))
    assert isinstance(helpdesk_auth(password), BasicAuth)


def test_read_and_plan_keeps_to_the_targets_and_counts_its_calls() -> None:
    state, credentials = seeded("acme")
    desired = DesiredState.from_manifest(
        Manifest(companies=[Company(name="Acme Corp", notes="moved"), Company(name="Newco")])
    )
    outcome = asyncio.run(
        read_and_plan(
            desired,
            connection(credentials),
            targets=[Selector("companies", "Newco")],
            excludes=[Selector("workspace.employees")],
            transport=asgi(state),
        )
    )
    assert [c.address for c in outcome.plan.changes] == ['companies["Newco"]']
    assert outcome.plan.brake is not None and not outcome.plan.brake.holds
    assert outcome.calls == len(state.requests) > 0
    assert "companies" in outcome.live.kinds


@pytest.mark.parametrize("service", ["helpdesk", "workspace"])
def test_the_requests_in_flight_reach_each_client(service: str) -> None:
    """`apply --parallelism N` bounds each client's requests in flight: a bound the
    client refuses (0) is refused whichever service it is for."""
    helpdesk = HelpdeskConnection("http://127.0.0.1:9/helpdesk", token=Secret("t"))
    workspace = WorkspaceConnection("http://127.0.0.1:9/workspace", Secret("k"))
    only = Connection(helpdesk, None) if service == "helpdesk" else Connection(None, workspace)

    async def main() -> None:
        async with open_clients(only, read_only=True, max_concurrency=0):
            pass

    with pytest.raises(ValueError, match="max_concurrency must be at least 1"):
        asyncio.run(main())
