"""The steps around the planner (planning/workflow.py), whole messages: an account that is
not an administrator is refused on its `Authorization` answer, naming it; manifests whose
services are both unconfigured get one line per service, each naming its variables."""

from __future__ import annotations

from typing import Any

import pytest

from reconciler.clients import BasicAuth, BearerAuth
from reconciler.clients.auth import Secret
from reconciler.clients.connection import Connection, HelpdeskConnection
from reconciler.errors import AuthenticationError, UsageError
from reconciler.manifest import DesiredState
from reconciler.manifest.models import Company, Department, Manifest
from reconciler.planning.plan import Selector
from reconciler.planning.workflow import check_services, helpdesk_auth, require_administrator

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
