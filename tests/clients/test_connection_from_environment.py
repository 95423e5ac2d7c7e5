"""Where the connection comes from (clients/connection.py `connection_from`): a flag wins
over the environment, a token over a username and password, and each service's
credentials are read from their own variables; a URL without credentials is a usage
error naming what to set; each way of giving the settings pins every field of the
connection, and `--timeout` the timeouts."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from reconciler.clients.connection import (
    Connection,
    RateSettings,
    Timeouts,
    connection_from,
)
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
        (
            {"HELPDESK_URL": HD, "HELPDESK_USERNAME": "admin"},
            "the helpdesk needs credentials: set HELPDESK_TOKEN, or HELPDESK_USERNAME and "
            "HELPDESK_PASSWORD",
        ),
        ({"WORKSPACE_URL": WS}, "the workspace service needs WORKSPACE_API_KEY"),
    ],
)
def test_a_url_without_credentials_names_what_to_set(env: dict[str, str], message: str) -> None:
    with pytest.raises(UsageError) as refused:
        connection_from(env)
    assert str(refused.value) == message


def test_no_url_leaves_the_services_unconfigured() -> None:
    assert not connection_from({"HELPDESK_PASSWORD": "x", "WORKSPACE_API_KEY": "y"}).configured


def shown(connection: Connection) -> dict[str, Any]:
    helpdesk, workspace = connection.helpdesk, connection.workspace
    return {
        "helpdesk": None
        if helpdesk is None
        else (
            helpdesk.url,
            helpdesk.token and helpdesk.token.reveal(),
            helpdesk.username,
            helpdesk.password and helpdesk.password.reveal(),
        ),
        "workspace": None if workspace is None else (workspace.url, workspace.api_key.reveal()),
        "rates": (connection.rates.general, connection.rates.search),
        "environment": connection.environment,
        "timeout": connection.timeouts.seconds,
        "configured": connection.configured,
    }


@pytest.mark.parametrize(
    ("env", "flags", "expected"),
    [
        (
            {"HELPDESK_URL": HD, "HELPDESK_TOKEN": "t0ken"},
            {},
            {"helpdesk": (HD, "t0ken", None, None), "workspace": None},
        ),
        (  # the flag's address, the environment's credentials
            {"HELPDESK_URL": HD, "HELPDESK_USERNAME": "admin", "HELPDESK_PASSWORD": "pw",
             "WORKSPACE_URL": "https://old.example.com", "WORKSPACE_API_KEY": "k3y"},
            {"workspace_url": WS},
            {"helpdesk": (HD, None, "admin", "pw"), "workspace": (WS, "k3y")},
        ),
        (  # an empty variable is no setting: the flag's address, the token
            {"HELPDESK_URL": "", "HELPDESK_TOKEN": "t0ken", "HELPDESK_USERNAME": ""},
            {"helpdesk_url": HD},
            {"helpdesk": (HD, "t0ken", None, None), "workspace": None},
        ),
        (  # credentials without an address: not configured
            {"HELPDESK_TOKEN": "t0ken", "WORKSPACE_URL": "", "WORKSPACE_API_KEY": "k3y"},
            {"helpdesk_url": "", "workspace_url": None},
            {"helpdesk": None, "workspace": None, "configured": False},
        ),
        (
            {"WORKSPACE_URL": WS, "WORKSPACE_API_KEY": "k3y"},
            {"rates": RateSettings(30, 20), "timeouts": Timeouts(7)},
            {"helpdesk": None, "workspace": (WS, "k3y"), "rates": (30, 20), "timeout": 7},
        ),
    ],
)  # fmt: skip
def test_the_connection_made_from_flags_and_environment(
    env: dict[str, str], flags: dict[str, Any], expected: dict[str, Any]
) -> None:
    defaults = {"rates": (90, 60), "environment": None, "timeout": 60.0, "configured": True}
    assert shown(connection_from(env, **flags)) == defaults | expected


@pytest.mark.parametrize(
    "env",
    [
        {"HELPDESK_URL": HD},
        {"HELPDESK_URL": HD, "HELPDESK_USERNAME": "admin"},
        {"HELPDESK_URL": HD, "HELPDESK_USERNAME": "admin", "HELPDESK_PASSWORD": ""},
        {"HELPDESK_URL": HD, "HELPDESK_PASSWORD": "pw"},
        {"HELPDESK_URL": HD, "HELPDESK_TOKEN": "", "HELPDESK_PASSWORD": "pw"},
    ],
)
def test_a_helpdesk_without_whole_credentials_is_refused_in_full(env: dict[str, str]) -> None:
    with pytest.raises(UsageError) as refused:
        connection_from(env)
    assert str(refused.value) == (
        "the helpdesk needs credentials: set HELPDESK_TOKEN, or "
        "HELPDESK_USERNAME and HELPDESK_PASSWORD"
    )


@pytest.mark.parametrize("key", [None, ""])
def test_a_workspace_without_its_key_is_refused_in_full(key: str | None) -> None:
    env = {"WORKSPACE_URL": WS} | ({} if key is None else {"WORKSPACE_API_KEY": key})
    with pytest.raises(UsageError) as refused:
        connection_from(env)
    assert str(refused.value) == "the workspace service needs WORKSPACE_API_KEY"


@pytest.mark.parametrize(
    ("seconds", "connect"),
    [(60.0, 10.0), (10.0, 10.0), (5.0, 5.0), (120.0, 10.0)],
)
def test_a_timeout_bounds_each_answer_the_connect_at_most_10_s_and_the_retries(
    seconds: float, connect: float
) -> None:
    timeouts = Timeouts(seconds)
    assert timeouts.http() == httpx.Timeout(seconds, connect=connect)
    assert timeouts.retry().retry_for == seconds
    assert Timeouts().seconds == 60.0
