"""What `validate` says of names with characters that have no place in them
(manifest/characters.py) and of `settings.ignore_fields` entries that cannot work
(manifest/validate.py), as the lines the user reads."""

from __future__ import annotations

import unicodedata
from pathlib import Path

import pytest

from reconciler.manifest.validate import validate_manifests
from tests.manifest.refusals import problems_of

USER_FIELDS = (
    "email, first_name, last_name, phone, location, notes, company, department, is_admin, "
    "disabled, send_welcome_email, custom_fields"
)

ROWS: list[tuple[str, str, list[str]]] = [
    (
        "the key ignored",
        "settings:\n  ignore_fields:\n    users: [username]\n",
        ["3:13: 'username' is the key of users: it cannot be ignored"],
    ),
    (
        "a misspelt field ignored",
        "settings:\n  ignore_fields:\n    users: [emial]\n",
        ["3:13: users have no field 'emial'; did you mean 'email'?"],
    ),
    (
        "a custom field ignored, then a misspelt field: each name is judged",
        "settings:\n  ignore_fields:\n    users: [custom_fields.Cost, emial]\n",
        ["3:33: users have no field 'emial'; did you mean 'email'?"],
    ),
    (
        "an unknown field ignored",
        "settings:\n  ignore_fields:\n    users: [zzz]\n",
        [f"3:13: users have no field 'zzz'; the fields: {USER_FIELDS}"],
    ),
    (
        "a field of a kind whose only field is its key",
        "settings:\n  ignore_fields:\n    departments: [zzz, custom_fields.X]\n",
        [
            "3:19: departments have no field 'zzz'; none can be ignored: their only field is "
            "the key 'name'",
            "3:24: departments have no field 'custom_fields.X'; none can be ignored: their only "
            "field is the key 'name'",
        ],
    ),
    (
        "an invisible character in a key",
        'companies:\n  - name: "Acme\\u200bCorp"\n',
        [
            "2:5: the companies key 'Acme\\u200bCorp' holds an invisible character (U+200B ZERO "
            "WIDTH SPACE) at position 5: remove it (a key must be written as it reads)"
        ],
    ),
    (
        "an invisible character in a name that refers to a key",
        'companies:\n  - name: Acme\nusers:\n  - username: a\n    company: "Ac\\u00adme"\n',
        [
            "5:14: the companies name 'Ac\\xadme' holds an invisible character (U+00AD SOFT "
            "HYPHEN) at position 3: remove it"
        ],
    ),
    (
        "a control character in a name, an invisible one allowed",
        'users:\n  - username: a\n    first_name: "Al\\x1bice"\n'
        '    last_name: "Zero\\u200dWidth"\n',
        [
            "3:17: first_name 'Al\\x1bice' holds a control character (U+001B) at position 3: "
            "remove it"
        ],
    ),
    (
        "a control character in an employee's name field",
        'workspace:\n  employees:\n    - email: a@b.com\n      full_name: "x\\ty"\n',
        ["4:18: full_name 'x\\ty' holds a control character (U+0009) at position 2: remove it"],
    ),
]


@pytest.mark.parametrize(("manifest", "problems"), [r[1:] for r in ROWS], ids=[r[0] for r in ROWS])
@pytest.mark.usefixtures("no_network")
def test_what_validate_says(
    manifest: str, problems: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    assert problems_of(manifest) == [f"m.yaml:{p}" for p in problems]


@pytest.mark.usefixtures("no_network")
def test_what_can_be_ignored(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    Path("m.yaml").write_text(
        "settings:\n  ignore_fields:\n    users: [custom_fields.Tier, notes]\n"
        "    workspace.employees: [anything]\n",
        encoding="utf-8",
    )
    assert validate_manifests([Path("m.yaml")], {}).warnings == []


# Each invisible character that is not of a format category (fillers and variation selectors,
# manifest/characters.py) is refused in a key, and the characters just past the ends of those
# ranges are not: `AㅤB` (a Hangul filler) would otherwise become a second company that reads like
# `A B`.

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
