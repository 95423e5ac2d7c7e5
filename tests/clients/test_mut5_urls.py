"""The API base address made from a configured address (clients/urls.py `api_base_url`):
`/api/` appended to the address's own path, and each way an address is refused, with its
whole message (which never repeats the address: it may hold a password)."""

from __future__ import annotations

import pytest

from reconciler.clients.urls import api_base_url
from reconciler.errors import UsageError

SCHEME = (
    "the helpdesk URL must start with http:// or https:// and name a host "
    "(for example https://acme.example.com or https://host/helpdesk)"
)


@pytest.mark.parametrize(
    ("configured", "base"),
    [
        ("https://acme.example.com", "https://acme.example.com/api/"),
        ("  https://acme.example.com/  ", "https://acme.example.com/api/"),
        ("http://host:8080/helpdesk", "http://host:8080/helpdesk/api/"),
        ("http://host/helpdesk//", "http://host/helpdesk/api/"),
        ("HTTPS://Acme.Example.com/Desk/", "https://acme.example.com/Desk/api/"),
    ],
)
def test_the_api_base_is_the_address_with_api_appended(configured: str, base: str) -> None:
    assert str(api_base_url(configured, "helpdesk")) == base


@pytest.mark.parametrize(
    ("configured", "message"),
    [
        ("acme.example.com", SCHEME),
        ("ftp://acme.example.com", SCHEME),
        ("https://", SCHEME),
        ("https:///helpdesk", SCHEME),
        ("https://admin:s3cret@acme.example.com",
         "the helpdesk URL must not carry credentials: give them in the environment"),
        ("https://admin@acme.example.com",
         "the helpdesk URL must not carry credentials: give them in the environment"),
        ("https://acme.example.com/?token=s3cret",
         "the helpdesk URL must not carry a query string or a fragment"),
        ("https://acme.example.com/#s3cret",
         "the helpdesk URL must not carry a query string or a fragment"),
    ],
)  # fmt: skip
def test_an_address_is_refused_naming_what_is_wrong(configured: str, message: str) -> None:
    with pytest.raises(UsageError) as refused:
        api_base_url(configured, "helpdesk")
    assert str(refused.value) == message


def test_the_refusal_names_the_service() -> None:
    with pytest.raises(UsageError) as refused:
        api_base_url("https://admin:s3cret@people.example.com", "workspace")
    assert str(refused.value) == (
        "the workspace URL must not carry credentials: give them in the environment"
    )
