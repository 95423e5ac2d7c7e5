"""`Masker.mask` looks for each form of the credentials in the text before running its
pattern (issues 23 and 25: a fleet's output against a pattern of several forms per
tenant): the text is masked exactly as the pattern alone masks it, whether it holds no
credential, one, several, overlapping ones or a form only in part."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from reconciler.masking import REDACTED, Masker

SECRETS = ["s3cr3t-token", "s3cr3t", "pass word+1", "tok/en?", "ünïcode-key", "abcd"]


def pattern_alone(masker: Masker, text: str) -> str:
    """What the pattern of every form, longest first, makes of `text` (the masking as it
    was before the search)."""
    ordered = sorted(masker._forms, key=len, reverse=True)
    return re.compile("|".join(map(re.escape, ordered))).sub(REDACTED, text)


def test_texts_with_none_some_and_overlapping_credentials() -> None:
    masker = Masker(SECRETS)
    texts = [
        "",
        "nothing secret here\n",
        "the token is s3cr3t-token, really",
        "s3cr3t-tokens3cr3t",  # the longer form first, then the shorter
        "s3cr3",  # a form only in part
        "pass%20word%2B1 and pass+word%2B1",  # URL-encoded forms
        '"\\u00fcn\\u00efcode-key"',  # JSON-escaped
        "abcabcd abcd\nab\ncd",
        "tok/en? tok%2Fen%3F",
    ]
    for text in texts:
        assert masker.mask(text) == pattern_alone(masker, text)
    assert masker.mask("the token is s3cr3t-token") == f"the token is {REDACTED}"
    assert masker.mask("no credential") == "no credential"


def test_a_credential_added_after_the_first_masking_is_searched_for_too() -> None:
    masker = Masker(["first-secret"])
    assert masker.mask("first-secret second-secret") == f"{REDACTED} second-secret"
    masker.add(["second-secret"])
    assert masker.mask("first-secret second-secret") == f"{REDACTED} {REDACTED}"


def test_nothing_to_mask_leaves_the_text_as_it_is() -> None:
    assert Masker([]).mask("s3cr3t-token") == "s3cr3t-token"
    assert Masker(["abc"]).mask("abc") == "abc"  # too short to be masked


@settings(max_examples=300, deadline=None)
@given(
    secrets=st.lists(st.text(alphabet="ab c/%+ü", min_size=4, max_size=8), max_size=5),
    text=st.text(alphabet="ab c/%+ü2F0\n", max_size=60),
)
def test_any_text_is_masked_as_the_pattern_alone_masks_it(secrets: list[str], text: str) -> None:
    masker = Masker(secrets)
    expected = pattern_alone(masker, text) if masker._forms else text
    assert masker.mask(text) == expected
