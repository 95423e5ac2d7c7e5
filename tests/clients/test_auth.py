"""Authentication: once, before anything else; a 401/403 ends the client; secrets never show."""

from __future__ import annotations

import asyncio
import base64
import logging

import httpx
import pytest

from reconciler.clients import ApiKey, BasicAuth, BearerAuth, HelpdeskClient, WorkspaceClient
from reconciler.clients.auth import Secret
from reconciler.errors import AuthenticationError, ReconcilerError, TransportFailure
from reconciler.sandbox import SandboxState
from tests.clients.conftest import (
    PASSWORDS,
    TOKENS,
    WORKSPACE_KEY,
    Sleeper,
    api_requests,
    endpoint_calls,
    fast_retry,
    helpdesk_client,
    workspace_client,
)

pytestmark = pytest.mark.anyio


async def test_authorization_is_the_first_call_and_made_once(state: SandboxState) -> None:
    async with helpdesk_client(state) as client:
        await asyncio.gather(client.companies(), client.departments(), client.categories())
        await client.companies()
        assert client.caller is not None and client.caller["Username"] == "admin"
    log = api_requests(state)
    assert log[0]["path"] == "/helpdesk/api/Authorization" and log[0]["method"] == "POST"
    assert len(endpoint_calls(state, "Authorization")) == 1
    assert len(log) == 5
    assert client.calls == 5


async def test_authenticate_returns_the_caller(state: SandboxState) -> None:
    async with helpdesk_client(state, BearerAuth(TOKENS["tina"])) as client:
        me = await client.authenticate()
        assert me["Username"] == "tina" and me["IsTech"] is True
        assert await client.authenticate() is me
    assert len(api_requests(state)) == 1


async def test_wrong_password_makes_exactly_one_request(state: SandboxState) -> None:
    async with helpdesk_client(state, BasicAuth("admin", "wrong")) as client:
        with pytest.raises(AuthenticationError) as caught:
            await client.users()
        assert caught.value.status == 401
        # Later calls are refused without reaching the server: no second failed login.
        with pytest.raises(AuthenticationError):
            await client.companies()
        with pytest.raises(AuthenticationError):
            await client.authenticate()
    assert len(state.requests) == 1
    assert state.requests[0]["status"] == 401


async def test_concurrent_calls_with_a_bad_token_make_one_request(state: SandboxState) -> None:
    async with helpdesk_client(state, BearerAuth("not-a-token")) as client:
        results = await asyncio.gather(
            *(client.companies() for _ in range(10)), return_exceptions=True
        )
    assert all(isinstance(r, AuthenticationError) for r in results)
    assert len(state.requests) == 1
    # One failed login, not ten: the IP is nowhere near the three-strike block.
    assert state.logins.blocked_for("127.0.0.1") == 0


async def test_forbidden_is_an_authentication_error_and_ends_the_client(
    state: SandboxState,
) -> None:
    async with helpdesk_client(state, BasicAuth("ursula", PASSWORDS["ursula"])) as client:
        await client.authenticate()
        with pytest.raises(AuthenticationError) as caught:
            await client.companies()  # needs an administrator
        assert caught.value.status == 403
        assert "administrator" in caught.value.message
        with pytest.raises(AuthenticationError):
            await client.departments()
    assert [r["status"] for r in state.requests] == [200, 403]


async def test_authentication_errors_are_not_retried(state: SandboxState) -> None:
    sleeper = Sleeper()
    async with helpdesk_client(state, BasicAuth("admin", "nope"), sleeper=sleeper) as client:
        with pytest.raises(AuthenticationError):
            await client.authenticate()
    assert sleeper.waits == []
    assert len(state.requests) == 1


def test_secrets_never_show_in_repr_or_str() -> None:
    basic = BasicAuth("admin", "s3cret-pw")
    bearer = BearerAuth("tok-abc123")
    key = ApiKey("key-xyz789")
    secret = Secret("hidden-value")
    for obj, value in ((basic, "s3cret-pw"), (bearer, "tok-abc123"), (key, "key-xyz789")):
        assert value not in repr(obj) and value not in str(obj) and value not in f"{obj}"
    assert "hidden-value" not in f"{secret} {secret!r} {secret!s} {secret:>20}"
    assert secret.reveal() == "hidden-value"
    assert "admin" in repr(basic)  # the user name is not a secret


def test_auth_headers() -> None:
    assert BasicAuth("admin", "pw").headers() == {"Authorization": "Basic YWRtaW46cHc="}
    assert BearerAuth(Secret("tok")).headers() == {"Authorization": "Bearer tok"}
    assert ApiKey("k").headers() == {"X-API-Key": "k"}


@pytest.mark.parametrize("bad", ["", "has space", "new\nline"])
def test_header_breaking_tokens_are_refused_without_echo(bad: str) -> None:
    for make in (BearerAuth, ApiKey):
        with pytest.raises(ValueError) as caught:
            make(bad)
        assert not bad or bad not in str(caught.value)


def test_a_username_with_a_colon_is_refused() -> None:
    with pytest.raises(ValueError):
        BasicAuth("a:b", "pw")


async def test_clients_repr_hides_secrets(state: SandboxState) -> None:
    async with helpdesk_client(state, BasicAuth("admin", "pw-in-repr")) as hd:
        assert "pw-in-repr" not in repr(hd) and "/helpdesk/api/" in repr(hd)
    async with helpdesk_client(state, BearerAuth("token-in-repr")) as hd:
        assert "token-in-repr" not in repr(hd)
    async with workspace_client(state, "key-in-repr") as ws:
        assert "key-in-repr" not in repr(ws)


async def test_no_secret_in_errors_or_logs(
    state: SandboxState, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    password = "pw-that-must-not-leak"
    errors: list[BaseException] = []
    async with helpdesk_client(state, BasicAuth("admin", password)) as hd:
        with pytest.raises(AuthenticationError) as caught:
            await hd.companies()
        errors.append(caught.value)

    def refuse(request: httpx.Request) -> httpx.Response:
        raise httpx.ConnectError("connection refused", request=request)

    token = "token-that-must-not-leak"
    async with HelpdeskClient(
        "http://127.0.0.1:9",
        BearerAuth(token),
        transport=httpx.MockTransport(refuse),
        retry=fast_retry(),
    ) as hd:
        with pytest.raises(TransportFailure) as failed:
            await hd.companies()
        errors.append(failed.value)
    key = "key-that-must-not-leak"
    async with workspace_client(state, key) as ws:
        with pytest.raises(AuthenticationError) as denied:
            await ws.employees()
        errors.append(denied.value)
    shown = " ".join(f"{e} {e!r} {e.args}" for e in errors) + caplog.text
    encoded = base64.b64encode(f"admin:{password}".encode()).decode()
    for secret in (password, token, key, encoded):
        assert secret not in shown
    assert all(isinstance(e, ReconcilerError) for e in errors)


async def test_workspace_bad_key_makes_exactly_one_request(state: SandboxState) -> None:
    async with workspace_client(state, "wrong-key") as ws:
        with pytest.raises(AuthenticationError) as caught:
            await ws.employees()
        assert caught.value.status == 401 and "Invalid API key" in caught.value.message
        with pytest.raises(AuthenticationError):
            await ws.create_employee({"email": "a@b.co", "firstName": "A", "lastName": "B"})
    assert len(api_requests(state, "workspace")) == 1
    assert isinstance(ws, WorkspaceClient) and WORKSPACE_KEY != "wrong-key"


def test_a_secret_is_true_only_when_not_empty() -> None:
    assert not Secret("")
    assert Secret("pw")
    assert f"{Secret('pw')}" == str(Secret("pw")) == repr(Secret("pw")) == "***"


def test_the_basic_header_is_the_encoded_credentials() -> None:
    auth = BasicAuth("DOMAIN\\admin", "pä:ss")
    assert auth.headers() == {"Authorization": "Basic RE9NQUlOXGFkbWluOnDDpDpzcw=="}
    assert auth.headers() is not auth.headers()  # a fresh dict: callers may change it
