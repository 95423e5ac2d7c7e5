"""docs/sandbox.md names every quirk `--quirk` accepts, and only those (the quirks a user
can reproduce are all documented), and `--quirk all` turns on each one."""

from __future__ import annotations

import re
from pathlib import Path

from reconciler.sandbox.config import QUIRKS
from reconciler.sandbox.serve import build_config
from tests.sandbox.test_quirk_matrix import VARIANTS

DOC = Path(__file__).resolve().parents[2] / "docs" / "sandbox.md"


def documented_quirks() -> set[str]:
    text = DOC.read_text(encoding="utf-8")
    table = text.split("## Quirks of the real service", 1)[1].split("\n## ", 1)[0]
    return set(re.findall(r"^\| `([a-z0-9-]+)` \|", table, flags=re.MULTILINE))


def test_every_quirk_is_in_the_table_of_docs_sandbox_md() -> None:
    documented = documented_quirks()
    assert sorted(set(QUIRKS) - documented) == [], "quirks missing from docs/sandbox.md"
    assert sorted(documented - set(QUIRKS)) == [], "documented quirks the sandbox lacks"


def test_the_matrix_covers_every_quirk() -> None:
    # The quirk matrix (test_quirk_matrix.py) runs each quirk of QUIRKS alone and all of
    # them together: a quirk the docs list is a quirk the matrix audits.
    assert {quirks[0] for quirks in VARIANTS if len(quirks) == 1} == set(QUIRKS)
    assert set(VARIANTS[-1]) == set(QUIRKS)


def test_quirk_all_turns_on_every_quirk() -> None:
    config = build_config(("all",), "", 90, 60)
    assert config.quirks == set(QUIRKS)
    assert "techs-list-implicit" in config.quirks


ROOT = DOC.parents[1]
WALKTHROUGHS = sorted(
    [ROOT / "README.md", *(ROOT / "docs").glob("*.md"), *(ROOT / "examples").rglob("README.md")]
)


def test_a_walkthrough_that_applies_through_serve_says_it_is_rate_limited() -> None:
    """`sandbox serve` allows 90 calls a minute, `--sandbox` any number: a page that
    applies through `serve` (without choosing a limit) says why it waits, and how not to."""
    silent = []
    for page in WALKTHROUGHS:
        text = page.read_text(encoding="utf-8")
        for block in re.findall(r"```sh\n(.*?)```", text, re.DOTALL):
            serves = re.search(r"^reconciler sandbox serve(?!.*--rate-limit)", block, re.M)
            if serves and re.search(r"^reconciler apply", block, re.M):
                said = " ".join(text.split())
                if "90 a minute" not in said or "`--rate-limit 0`" not in said:
                    silent.append(str(page.relative_to(ROOT)))
    assert silent == []
