"""The credentials (clients/auth.py) as a user meets them: each refusal's whole message,
the edges of what a header may hold, every way a secret is shown, and each credential
(and the Basic header made from it) masked in every output once the auth is made."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from reconciler import masking
from reconciler.clients.auth import ApiKey, BasicAuth, BearerAuth, Secret

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
