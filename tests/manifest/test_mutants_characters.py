"""Each invisible character that is not of a format category (fillers and variation
selectors, manifest/characters.py) is refused in a key, and the characters just past the
ends of those ranges are not: `AㅤB` (a Hangul filler) would otherwise become a second
company that reads like `A B`."""

from __future__ import annotations

import unicodedata
from pathlib import Path

import pytest

from reconciler.manifest import validate_manifests
from tests.manifest.refusals import problems_of

INVISIBLE = [0x034F, 0x115F, 0x1160, 0x17B4, 0x17B5, 0x180B, 0x180C, 0x180D, 0x180F, 0x3164]
INVISIBLE += [0xFFA0, 0xFE00, 0xFE0F, 0xE0100, 0xE01EF]
# Just past the ends of the ranges above: visible punctuation, and a code point unassigned.
NOT_INVISIBLE = [0xFE10, 0xE01F0, 0x3165]


@pytest.mark.parametrize("point", INVISIBLE, ids=[f"U+{p:04X}" for p in INVISIBLE])
@pytest.mark.usefixtures("no_network")
def test_an_invisible_character_in_a_key_is_refused(
    point: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    name = f"A{chr(point)}B"
    shown = f"U+{point:04X}" + (
        f" {unicodedata.name(chr(point))}" if unicodedata.name(chr(point), "") else ""
    )
    assert problems_of(f'companies: [{{name: "A\\U{point:08X}B"}}]\n') == [
        f"m.yaml:1:13: the companies key {name!r} holds an invisible character ({shown}) "
        "at position 2: remove it (a key must be written as it reads)"
    ]


@pytest.mark.parametrize("point", NOT_INVISIBLE, ids=[f"U+{p:04X}" for p in NOT_INVISIBLE])
@pytest.mark.usefixtures("no_network")
def test_the_characters_next_to_them_are_names_like_any(
    point: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    Path("m.yaml").write_text(f'companies: [{{name: "A\\U{point:08X}B"}}]\n', encoding="utf-8")
    validated = validate_manifests([Path("m.yaml")], {})
    assert [c.name for c in validated.desired.manifest.companies] == [f"A{chr(point)}B"]
