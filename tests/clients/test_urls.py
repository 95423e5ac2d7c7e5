"""A service's addresses (clients/urls.py): the API base made from a configured address
(`/api/` appended to its own path) and each way an address is refused, with its whole
message (which never repeats the address: it may hold a password); and the one address a
service is known by however it is spelled (IPv6 brackets kept, an IPv4 loopback written as
IPv6 is the loopback, an address that does not parse kept as written)."""

from __future__ import annotations

import pytest

from reconciler.clients.urls import api_base_url, service_address
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


@pytest.mark.parametrize(
    ("spelling", "address"),
    [
        ("http://[2001:DB8::1]:8080/helpdesk/", "http://[2001:db8::1]:8080/helpdesk"),
        ("http://[::ffff:127.0.0.1]:8080/helpdesk", "http://localhost:8080/helpdesk"),
        ("http://[::ffff:10.0.0.1]/helpdesk", "http://[::ffff:10.0.0.1]/helpdesk"),
        ("  http://[::1/helpdesk  ", "http://[::1/helpdesk"),
        ("http://10.0.0.1/helpdesk", "http://10.0.0.1/helpdesk"),
        ("https://helpdesk.example.com/", "https://helpdesk.example.com"),
    ],
    ids=["ipv6", "ipv4-mapped-loopback", "ipv4-mapped-other", "unparsable", "ipv4", "name"],
)
def test_the_address_of_other_spellings(spelling: str, address: str) -> None:
    assert service_address(spelling, "helpdesk") == address


def test_an_address_that_does_not_parse_is_refused_without_repeating_it() -> None:
    with pytest.raises(UsageError) as refused:
        api_base_url("http://user:s3cret@[::1/helpdesk", "helpdesk")
    assert str(refused.value) == "the helpdesk URL is not a valid address"
