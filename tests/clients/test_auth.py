"""Authentication: once, before anything else; a 401/403 ends the client; secrets never show."""

from __future__ import annotations

import asyncio
import base64
import logging
from collections.abc import Callable, Iterator

import httpx
import pytest

from reconciler import masking
from reconciler.clients import ApiKey, BasicAuth, BearerAuth, HelpdeskClient, WorkspaceClient
from reconciler.clients.auth import Secret
from reconciler.errors import AuthenticationError, ReconcilerError, TransportFailure
from reconciler.sandbox.state import SandboxState
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

WRONG_LOGIN = "POST /api/Authorization failed: 401 Invalid username, password or token"


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
        assert str(caught.value) == WRONG_LOGIN
        # Later calls are refused without reaching the server: no second failed login; each
        # is told the failure of that login, not an error of its own.
        with pytest.raises(AuthenticationError) as later:
            await client.companies()
        assert str(later.value) == str(caught.value)
        with pytest.raises(AuthenticationError) as again:
            await client.authenticate()
        assert str(again.value) == str(caught.value)
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
        assert str(caught.value) == (
            "GET /api/Companies failed: 403 Access denied: administrator permission required"
        )
        with pytest.raises(AuthenticationError) as later:
            await client.departments()
        assert str(later.value) == str(caught.value)
    assert [r["status"] for r in state.requests] == [200, 403]


async def test_authentication_errors_are_not_retried(state: SandboxState) -> None:
    sleeper = Sleeper()
    async with helpdesk_client(state, BasicAuth("admin", "nope"), sleeper=sleeper) as client:
        with pytest.raises(AuthenticationError) as caught:
            await client.authenticate()
    assert str(caught.value) == WRONG_LOGIN
    assert sleeper.waits == []
    assert len(state.requests) == 1


def test_each_credential_makes_its_header() -> None:
    assert BasicAuth("admin", "pw").headers() == {"Authorization": "Basic YWRtaW46cHc="}
    basic = BasicAuth("DOMAIN\\admin", "pä:ss")
    assert basic.headers() == {"Authorization": "Basic RE9NQUlOXGFkbWluOnDDpDpzcw=="}
    assert basic.headers() is not basic.headers()  # a fresh dict: callers may change it
    assert BearerAuth(Secret("tok")).headers() == {"Authorization": "Bearer tok"}
    assert ApiKey("k").headers() == {"X-API-Key": "k"}


@pytest.mark.parametrize("bad", ["", "has space", "new\nline"])
def test_header_breaking_tokens_are_refused_without_echo(bad: str) -> None:
    for make in (BearerAuth, ApiKey):
        with pytest.raises(ValueError) as caught:
            make(bad)
        assert not bad or bad not in str(caught.value)


def test_a_username_with_a_colon_is_refused() -> None:
    with pytest.raises(ValueError) as refused:
        BasicAuth("a:b", "pw")
    assert str(refused.value) == USERNAME


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
        assert str(caught.value) == "GET /api/employees failed: 401 Invalid API key"
        with pytest.raises(AuthenticationError) as later:
            await ws.create_employee({"email": "a@b.co", "firstName": "A", "lastName": "B"})
        assert str(later.value) == str(caught.value)
    assert len(api_requests(state, "workspace")) == 1
    assert isinstance(ws, WorkspaceClient) and WORKSPACE_KEY != "wrong-key"


TOKEN = "the helpdesk token is empty or holds spaces or control characters"
KEY = "the workspace API key is empty or holds spaces or control characters"
USERNAME = "the helpdesk username must be non-empty and cannot contain ':'"


@pytest.fixture(autouse=True)
def fresh_masking() -> Iterator[None]:
    masking.install({})
    yield
    masking.install({})


@pytest.mark.parametrize(
    ("make", "value", "message"),
    [
        (BearerAuth, "", TOKEN), (BearerAuth, "tab\there", TOKEN), (BearerAuth, "del\x7f", TOKEN),
        (BearerAuth, "caf\u00e9-token", TOKEN), (BearerAuth, "line\n", TOKEN),
        (ApiKey, "", KEY), (ApiKey, "a b", KEY), (ApiKey, Secret("nul\x00key"), KEY),
        (lambda u: BasicAuth(u, "pw"), "", USERNAME),
        (lambda u: BasicAuth(u, "pw"), "domain:user", USERNAME),
    ],
)  # fmt: skip
def test_a_credential_that_cannot_be_sent_is_refused_in_full(
    make: object, value: str, message: str
) -> None:
    with pytest.raises(ValueError) as refused:
        make(value)  # type: ignore[operator]
    assert str(refused.value) == message


def test_every_visible_ascii_character_may_be_in_a_token_or_key() -> None:
    visible = "".join(map(chr, range(0x21, 0x7F)))  # ! to ~
    assert BearerAuth(visible).headers() == {"Authorization": f"Bearer {visible}"}
    assert ApiKey(Secret(visible)).headers() == {"X-API-Key": visible}


def test_each_way_a_credential_is_shown() -> None:
    secret = Secret("hidden-value")
    assert (repr(secret), str(secret), f"{secret}", f"{secret:>20}") == ("***",) * 4
    assert secret and not Secret("")
    assert secret.reveal() == "hidden-value"
    basic = BasicAuth("DOMAIN\\admin", Secret("s3cret-pw"))
    assert repr(basic) == str(basic) == "BasicAuth(username='DOMAIN\\\\admin', password=***)"
    assert basic.username == "DOMAIN\\admin"
    assert (
        repr(BearerAuth("tok-abc123")) == str(BearerAuth("tok-abc123")) == ("BearerAuth(token=***)")
    )
    assert repr(ApiKey("key-xyz789")) == str(ApiKey("key-xyz789")) == "ApiKey(***)"


def test_each_credential_is_masked_once_its_auth_is_made() -> None:
    text = (
        "pw=s3cret-pw token=tok-abc123 key=key-xyz789 "
        "header=Basic YWRtaW46czNjcmV0LXB3 cut=Basic YWRtaW46czNj..."
    )
    assert masking.mask(text) == text  # nothing masked yet
    basic = BasicAuth("admin", "s3cret-pw")
    BearerAuth(Secret("tok-abc123"))
    ApiKey("key-xyz789")
    assert basic.headers() == {"Authorization": "Basic YWRtaW46czNjcmV0LXB3"}
    assert masking.mask(text) == ("pw=*** token=*** key=*** header=Basic *** cut=Basic ***...")


@pytest.mark.parametrize(
    ("make", "secret"),
    [
        (lambda: ApiKey("ws-key-mask-41"), "ws-key-mask-41"),
        (lambda: BearerAuth("bearer-mask-42"), "bearer-mask-42"),
        (lambda: BasicAuth("admin", "basic-mask-43"), "basic-mask-43"),
    ],
    ids=["api-key", "bearer", "basic"],
)
def test_a_credential_given_to_a_client_is_masked_in_every_output(
    make: Callable[[], object], secret: str
) -> None:
    make()
    assert masking.mask(f"failed with {secret} in it") == "failed with *** in it"
