"""Two ASCII names are told apart as written, even where Unicode's confusables table
folds them together (`1` and `l`, `0` and `O`): `Bi11` and `Bill` are two users a reader
can tell apart, and warning about every such pair would bury the real look-alikes. A
non-ASCII name folded to an ASCII one is still found."""

from __future__ import annotations

from reconciler.manifest.confusables import LookalikeIndex, confusable_pairs, fold

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
