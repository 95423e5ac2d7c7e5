"""What `confusables` reads as one name, pinned on a table: `fold` (NFKC, case folding,
the TR39 skeleton to a fixed point, white space collapsed), the pairs `confusable_pairs`
finds among names and against others (none where an other is the name as compared), and
`LookalikeIndex` with and without the shortcut for ASCII names."""

from __future__ import annotations

import pytest

from reconciler.manifest.confusables import LookalikeIndex, confusable_pairs, fold


@pytest.mark.parametrize(
    ("name", "folded"),
    [
        ("Acme", "acrne"),  # the skeleton writes `m` as `rn`
        ("\uff21cme", "acrne"),  # a fullwidth A
        ("\u0410cme", "acrne"),  # a Cyrillic A
        ("\ufb01nance", "finance"),  # a ligature
        ("\u2168", "ix"),  # a Roman numeral
        ("  Big   Co ", "big co"),
        ("Stra\u00dfe", "strasse"),
        ("%", "o/o"),  # a prototype that normalises further
        ("O0", "oo"),
        ("e-1", "e-l"),
        ("x\u0301", "x\u0301"),
    ],
)
def test_fold(name: str, folded: str) -> None:
    assert fold(name) == folded


def test_pairs_among_names_and_against_others() -> None:
    names = ["Acme", "\uff21cme", "acme", "ACME ", "\u0410cme"]
    assert confusable_pairs(names) == [("\uff21cme", "Acme"), ("\u0410cme", "Acme")]
    assert confusable_pairs(["IX"], ["\u2168", "ix"]) == []  # `ix` is the name as compared
    assert confusable_pairs(["\u2168"], ["IX"]) == [("\u2168", "IX")]


def test_lookalike_index() -> None:
    index = LookalikeIndex(["\u2168", "Acme", "Stra\u00dfe"])
    names = ["IX", "ix", "\uff21cme", "acme", "Strasse", "STRASSE", "Other"]
    assert [index.match(name) for name in names] == [
        "\u2168",
        "\u2168",
        "Acme",
        None,
        None,
        None,
        None,
    ]
    as_written = LookalikeIndex(["E-1", "\u2168"], compared=lambda name: name)
    names = ["E-l", "e-1", "E-1", "IX", "\u2168"]
    assert [as_written.match(name) for name in names] == ["E-1", "E-1", None, "\u2168", None]
