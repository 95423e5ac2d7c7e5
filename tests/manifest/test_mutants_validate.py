"""The look-alike warnings of `validate` between a name and the keys it refers to, where
the cheap ways out (a name written as a key is, ASCII among ASCII keys, a name that folds
like no key) must not hide a pair: an ASCII name that is a look-alike of a key that is not
ASCII, and a pair after a name that folds like none."""

from __future__ import annotations

from reconciler.manifest import load_manifest_text, reference_warnings
from reconciler.manifest.confusables import _prototypes

ROMAN_NINE = "\u2168"  # Ⅸ, one character: IX to a reader, not to the helpdesk
SAME = (
    "are one name only after Unicode normalisation (NFKC, TR39 confusables) and case "
    "folding, but two to the helpdesk: write them alike"
)


def test_an_ascii_name_is_compared_with_keys_that_are_not_ascii() -> None:
    text = (
        "departments:\n"
        f'  - name: "{ROMAN_NINE}"\n'
        "users:\n"
        "  - username: carol\n"
        "    department: \u00d6tztal\n"  # not ASCII, folds like no department: no pair
        "  - username: dave\n"
        "    department: IX\n"  # ASCII, the look-alike of the only department
    )
    warnings = reference_warnings(load_manifest_text(text, "m.yaml"))
    assert warnings == [f"m.yaml:7:17: 'IX' and departments '{ROMAN_NINE}' {SAME}"]


def test_ascii_names_among_ascii_keys_load_no_confusables_table() -> None:
    """Issue 25: an all-ASCII manifest is checked without Unicode's confusables table
    (megabytes read and parsed): two ASCII names are told apart as written."""
    text = (
        "companies: [{name: Acme}]\n"
        "users: [{username: alice, company: Initech}, {username: bob, company: ACME}]\n"
    )
    desired = load_manifest_text(text, "m.yaml")
    _prototypes.cache_clear()
    assert reference_warnings(desired) == []
    assert _prototypes.cache_info().currsize == 0
