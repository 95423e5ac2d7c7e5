"""Masking (masking.py) of what the earlier tables leave out: a credential outside ASCII in
every form an output may give it, each whole; a Basic header quoted in a URL or a form;
the second of two Basic tokens; a credential variable set but empty."""

from __future__ import annotations

import pytest

from reconciler.masking import REDACTED, Masker, install, mask

VALUE = "pässwörd/ä b"  # outside ASCII, with a slash and a space


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        (f"[{VALUE}]", f"[{REDACTED}]"),  # as written
        ("[p\\u00e4ssw\\u00f6rd/\\u00e4 b]", f"[{REDACTED}]"),  # JSON, ASCII only
        ("[p\\xe4ssw\\xf6rd/\\xe4 b]", f"[{REDACTED}]"),  # escaped as problem messages show
        ("[p%C3%A4ssw%C3%B6rd%2F%C3%A4%20b]", f"[{REDACTED}]"),  # a URL path segment
        ("[p%C3%A4ssw%C3%B6rd/%C3%A4%20b]", f"[{REDACTED}]"),  # a URL path
        ("[p%C3%A4ssw%C3%B6rd%2F%C3%A4+b]", f"[{REDACTED}]"),  # a form field
        ("[pässwörd/ä]", "[pässwörd/ä]"),  # a part of it: could be anything
    ],
)
def test_a_credential_outside_ascii_is_masked_in_every_form(text: str, shown: str) -> None:
    assert Masker([VALUE]).mask(text) == shown


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("Authorization=Basic%20YWRtaW46c2Vj", f"Authorization=Basic%20{REDACTED}"),
        ("Authorization=Basic+YWRtaW46c2Vj", f"Authorization=Basic+{REDACTED}"),
        ("Basic\t Zm9vOmJhcg==", f"Basic\t {REDACTED}"),  # the second token, whole
        ("Basic Zm9vOmJh...", f"Basic {REDACTED}..."),  # the second token, cut short
        ("Basic Zm9vYmF6", "Basic Zm9vYmF6"),  # neither
        ("Basicly YWRtaW46c2Vj", "Basicly YWRtaW46c2Vj"),  # not the word Basic
    ],
)
def test_basic_headers_of_either_token_however_quoted(text: str, shown: str) -> None:
    masker = Masker([])
    masker.add_basic("YWRtaW46c2VjcmV0")  # admin:secret
    masker.add_basic("Zm9vOmJhcg==")  # foo:bar
    assert masker.mask(text) == shown


def test_a_credential_variable_set_but_empty_masks_nothing() -> None:
    try:
        installed = install(
            {"HELPDESK_TOKEN": "", "WORKSPACE_API_KEY": "key-of-the-workspace", "OTHER": "x-y-z"}
        )
        assert mask("token= key=key-of-the-workspace other=x-y-z") == (
            f"token= key={REDACTED} other=x-y-z"
        )
        assert installed
    finally:
        install({})
    assert mask("key=key-of-the-workspace") == "key=key-of-the-workspace"
