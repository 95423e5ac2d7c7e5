"""The plan's values on one line, as every output shows them (the renderers, the saved
plan file's messages): every control character escaped, so that a value taken from a
manifest or from the live API can never colour a terminal, move its cursor, reorder text or
end a line; long values shortened in the middle; the summary's counts in words."""

from __future__ import annotations

import re
from collections.abc import Mapping

from reconciler.plans import Action

# C0 and C1 controls, DEL, line/paragraph separators and the bidi embeddings, overrides
# and isolates ("Trojan Source"): none of them may reach a terminal or a comment raw.
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")
_NAMED_ESCAPES = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _escape_control(match: re.Match[str]) -> str:
    char = match.group()
    if char in _NAMED_ESCAPES:
        return _NAMED_ESCAPES[char]
    code = ord(char)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def clean(text: str) -> str:
    """`text` on one line with every control character shown as an escape."""
    return _CONTROL.sub(_escape_control, text)


def shorten(text: str, limit: int) -> str:
    """`text` with its middle replaced by `...` when it has more than `limit` characters:
    the beginning and the end of a long value are what tell two values apart."""
    if len(text) <= limit:
        return text
    head = (limit * 2) // 3
    tail = limit - head - 3
    return f"{text[:head]}...{text[len(text) - tail :]}"


def summary_counts(summary: Mapping[str, int]) -> str:
    """`1 to create, 2 to update, 0 to delete, 0 to enable, 1 to disable`."""
    return ", ".join(f"{summary.get(a.value, 0)} to {a.value}" for a in Action)
