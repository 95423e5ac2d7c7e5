"""The `previously:` line a rename hint gives (planning/renames.py) is YAML that
reads back as the live key, whatever the key holds; and serial numbers compare without
case, spacing or separators."""

from __future__ import annotations

import pytest

from reconciler.manifest.loader import load_manifest_text
from reconciler.planning.renames import compact, previously_line

KEYS = [
    "Acme Corp",
    "tina.nguyen",
    "alice@acme.com",
    "PF4KX2A2-R",
    "Acme, Inc.",
    "Acme: West",
    "[draft]",
    "123",
    "1e3",
    "yes",
    "Null",
    "# hash",
    "- dash",
    'say "hi"',
    "back\\slash",
    "Müller GmbH",
    " padded",
]


@pytest.mark.parametrize("key", KEYS)
def test_the_line_reads_back_as_the_key(key: str) -> None:
    line = previously_line(key)
    desired = load_manifest_text(f"companies:\n  - name: New\n    {line}\n")
    assert desired.manifest.companies[0].previously == [key.strip()]


def test_a_plain_key_is_written_plain() -> None:
    assert previously_line("Acme Corp") == "previously: [Acme Corp]"
    assert previously_line("123") == 'previously: ["123"]'


def test_a_quoted_key_keeps_its_letters_readable() -> None:
    # The line is for a person to copy: "Zoë" stays "Zoë", not "Zo\u00eb".
    assert previously_line("Zoë: sales") == 'previously: ["Zoë: sales"]'


def test_serials_compare_without_case_spacing_or_separators() -> None:
    assert compact("PF4K-X2A2") == compact("pf4k x2a2") == compact("PF4K_X2.A2") == "pf4kx2a2"
    assert compact("PF4K-X2A3") != compact("PF4K-X2A2")
