"""Where the connection comes from: a flag wins over the environment, a token over a
username and password, and each service's credentials are read from their own
variables; a URL without credentials is a usage error naming what to set."""

from __future__ import annotations

import pytest

from reconciler.clients.connection import connection_from
from reconciler.errors import UsageError

HD = "https://acme.example.com/helpdesk"
WS = "https://people.example.com"


def test_a_username_and_password_from_the_environment() -> None:
    env = {"HELPDESK_URL": HD, "HELPDESK_USERNAME": "admin", "HELPDESK_PASSWORD": "s3cret"}
    helpdesk = connection_from(env).helpdesk
    assert helpdesk is not None and helpdesk.url == HD and helpdesk.token is None
    assert helpdesk.username == "admin"
    assert helpdesk.password is not None and helpdesk.password.reveal() == "s3cret"


def test_a_token_wins_and_a_flag_wins_over_the_environment() -> None:
    env = {"HELPDESK_URL": HD, "HELPDESK_TOKEN": "t0ken", "HELPDESK_USERNAME": "admin"}
    env |= {"WORKSPACE_URL": WS, "WORKSPACE_API_KEY": "k3y"}
    connection = connection_from(env, helpdesk_url="https://other.example.com")
    assert connection.helpdesk is not None and connection.helpdesk.username is None
    assert connection.helpdesk.url == "https://other.example.com"
    assert connection.helpdesk.token is not None and connection.helpdesk.token.reveal() == "t0ken"
    assert connection.workspace is not None and connection.workspace.api_key.reveal() == "k3y"
    assert connection.configured


@pytest.mark.parametrize(
    ("env", "message"),
    [
        ({"HELPDESK_URL": HD, "HELPDESK_USERNAME": "admin"}, "HELPDESK_PASSWORD"),
        ({"WORKSPACE_URL": WS}, "the workspace service needs WORKSPACE_API_KEY"),
    ],
)
def test_a_url_without_credentials_names_what_to_set(env: dict[str, str], message: str) -> None:
    with pytest.raises(UsageError, match=message):
        connection_from(env)


def test_no_url_leaves_the_services_unconfigured() -> None:
    assert not connection_from({"HELPDESK_PASSWORD": "x", "WORKSPACE_API_KEY": "y"}).configured
