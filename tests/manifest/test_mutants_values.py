"""A boolean field written with a YAML 1.1 word (`yes`, `no`, `on`, `off`, `y`, `n`, in any
case) is refused with the reason: YAML 1.2 reads it as text. Any other text is refused
without it."""

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
