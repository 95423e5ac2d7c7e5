"""Names that are one name only after NFKC normalisation and case folding are warned
about, naming both: within a kind, and between a name and the key it refers to."""

from __future__ import annotations

from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from reconciler.manifest import validate_manifests
from reconciler.manifest.confusables import confusable_pairs, fold

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
    same = "are one name only after Unicode normalisation (NFKC) and case folding"
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
