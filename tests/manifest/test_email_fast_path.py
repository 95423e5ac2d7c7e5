"""The usual e-mail address is accepted without asking email-validator
(`values.plainly_valid_email`): only where email-validator accepts it too."""

from __future__ import annotations

from email_validator import EmailNotValidError, validate_email
from hypothesis import example, given, settings
from hypothesis import strategies as st

from reconciler.manifest.values import plainly_valid_email

LABEL = st.text(alphabet="abcXYZ019-", min_size=1, max_size=70)
LOCAL = st.text(alphabet="abZ09._+-", min_size=1, max_size=70)


def accepted(address: str) -> bool:
    try:
        validate_email(address, check_deliverability=False, globally_deliverable=False)
    except EmailNotValidError as exc:
        return "special-use or reserved name" in str(exc)  # values._email takes those
    return True


@settings(max_examples=400, deadline=None)
@given(LOCAL, st.lists(LABEL, min_size=1, max_size=4), st.text(alphabet="abcZ1-", max_size=65))
@example("user0001", ["c001", "example"], "com")
@example("a" * 64, ["b" * 63], "cc")
@example("x", ["xn--abc"], "com")
@example("x", ["a"], "museum")
def test_the_fast_path_accepts_only_what_email_validator_accepts(
    local: str, labels: list[str], top: str
) -> None:
    address = f"{local}@{'.'.join([*labels, top])}"
    if plainly_valid_email(address):
        assert accepted(address), address


def test_the_usual_addresses_take_the_fast_path() -> None:
    assert plainly_valid_email("first.last+tag@mail.example.com")
    assert plainly_valid_email("user0001@c001.example.com")
    assert not plainly_valid_email("caf\u00e9@example.com")  # email-validator judges those
    assert not plainly_valid_email("a..b@example.com")
    assert not plainly_valid_email("a@xn--bcher-kva.example")
    assert not plainly_valid_email("a@example.123")
