"""A boolean field written with a YAML 1.1 word (`yes`, `no`, `on`, `off`, `y`, `n`, in any
case) is refused with the reason: YAML 1.2 reads it as text. Any other text is refused
without it."""

# ruff: noqa: E501  (a row of the table is one line, whatever its length)

from __future__ import annotations

from pathlib import Path

import pytest

from tests.manifest.refusals import problems_of

HINT = " (YAML 1.2 reads it as text)"
WORDS = [("yes", HINT), ("no", HINT), ("on", HINT), ("off", HINT), ("y", HINT), ("n", HINT)]
WORDS += [("Off", HINT), ("YES", HINT), ("maybe", ""), ("true ", "")]


@pytest.mark.parametrize(("word", "hint"), WORDS, ids=[w for w, _ in WORDS])
@pytest.mark.usefixtures("no_network")
def test_a_yaml_1_1_boolean_word_is_refused_with_the_reason(
    word: str, hint: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    assert problems_of(f"users: [{{username: a, is_admin: '{word}'}}]\n") == [
        f"m.yaml:1:33: users[0].is_admin: expected true or false, found '{word}'{hint}"
    ]


UNSET = [
    ("a domain", "companies: [{name: A, email_domains: ['${NOPE}']}]\n", ["1:39"]),
    ("a boolean and an e-mail", "users: [{username: a, is_admin: '${NOPE}', email: '${NOPE}'}]\n", ["1:33", "1:51"]),
    ("an id", "automation_rules: [{id: '${NOPE}', enabled: true}]\n", ["1:25"]),
    ("a percent and a count", "settings: {safety: {max_change_percent: '${NOPE}', min_existing: '${NOPE}'}}\n", ["1:41", "1:66"]),
    ("a quantity", "assets: [{serial_number: S, quantity: '${NOPE}'}]\n", ["1:39"]),
]  # fmt: skip


@pytest.mark.parametrize(("manifest", "places"), [u[1:] for u in UNSET], ids=[u[0] for u in UNSET])
@pytest.mark.usefixtures("no_network")
def test_a_variable_not_set_is_reported_once_not_again_as_a_bad_value(
    manifest: str, places: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("NOPE", raising=False)
    assert problems_of(manifest) == [f"m.yaml:{p}: variable 'NOPE' is not set" for p in places]
