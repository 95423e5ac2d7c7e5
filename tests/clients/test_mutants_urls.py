"""The address a service is known by (what the apply lock is keyed on and the wrong-tenant
guard compares), for the spellings the other tests leave out: an IPv6 host keeps its
brackets, an IPv4 loopback written as IPv6 is the loopback, an address that does not
parse is kept as written (the client then refuses it); and the client's refusal of an
address that is no address, without repeating it (it may hold a password)."""

from __future__ import annotations

import pytest

from reconciler.clients.urls import api_base_url, service_address
from reconciler.errors import UsageError


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
