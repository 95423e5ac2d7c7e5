"""Credentials never reach an output: their values are replaced by `***` wherever they
appear (DESIGN §5), whatever the path they took there (a value pasted into a manifest, an
API error quoting a header, an exception's message).

The credential variables are `HELPDESK_TOKEN`, `HELPDESK_PASSWORD`, `WORKSPACE_API_KEY`
and any named in `RECONCILER_SECRET_VARIABLES` (names separated by commas or spaces). A
manifest may not refer to any of them as `${NAME}` (manifest/variables.py), and the CLI
masks their values in everything it writes: stdout and stderr (plans in every format,
messages, errors), saved plans and the apply log.

Each value is also masked in the forms an output may give it: JSON-escaped, with control
characters escaped (as problem messages show them) and URL-encoded. Values shorter than
`MIN_MASKED` characters are not masked: hiding every `a` would make output unreadable, and
a credential that short protects nothing.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from typing import IO, Any
from urllib.parse import quote

REDACTED = "***"
MIN_MASKED = 4
CREDENTIAL_VARIABLES = ("HELPDESK_TOKEN", "HELPDESK_PASSWORD", "WORKSPACE_API_KEY")
EXTRA_VARIABLES_SETTING = "RECONCILER_SECRET_VARIABLES"


def credential_names(env: Mapping[str, str]) -> list[str]:
    """The names of the credential variables: the built-in ones and the extra ones."""
    extra = re.split(r"[\s,]+", env.get(EXTRA_VARIABLES_SETTING, "").strip())
    return list(dict.fromkeys([*CREDENTIAL_VARIABLES, *(name for name in extra if name)]))


class Masker:
    """Replaces each of `values` (and its escaped forms) by `***` in text."""

    def __init__(self, values: Iterable[str]) -> None:
        forms: set[str] = set()
        for value in values:
            if len(value) < MIN_MASKED:
                continue
            forms.update(
                {
                    value,
                    json.dumps(value)[1:-1],
                    json.dumps(value, ensure_ascii=False)[1:-1],
                    value.encode("unicode_escape").decode("ascii"),
                    quote(value, safe=""),
                }
            )
        ordered = sorted(forms, key=len, reverse=True)  # the longest form wins an overlap
        self._pattern = re.compile("|".join(map(re.escape, ordered))) if ordered else None

    def __bool__(self) -> bool:
        return self._pattern is not None

    def mask(self, text: str) -> str:
        if self._pattern is None:
            return text
        return self._pattern.sub(REDACTED, text)


_active = Masker(())


def install(env: Mapping[str, str]) -> Masker:
    """Masks the values of the credential variables of `env` from now on in `mask()`."""
    global _active
    _active = Masker(env[name] for name in credential_names(env) if env.get(name))
    return _active


def mask(text: str) -> str:
    """The text with every credential installed by `install()` replaced by `***`."""
    return _active.mask(text)


class MaskingStream:
    """A text stream that masks what is written to it before passing it on.

    Text is held back to the end of a line (or the next flush) so that a value written in
    two pieces is still masked. It has no `buffer`: writers that would go around the text
    layer (click's binary path) find none and write text here."""

    def __init__(self, stream: IO[str], masker: Masker) -> None:
        self._stream = stream
        self._masker = masker
        self._pending = ""

    def write(self, text: str) -> int:
        if not isinstance(text, str):
            raise TypeError(f"write() argument must be str, not {type(text).__name__}")
        self._pending += text
        end = self._pending.rfind("\n") + 1
        if end:
            self._stream.write(self._masker.mask(self._pending[:end]))
            self._pending = self._pending[end:]
        return len(text)

    def flush(self) -> None:
        if self._pending:
            self._stream.write(self._masker.mask(self._pending))
            self._pending = ""
        self._stream.flush()

    def writelines(self, lines: Iterable[str]) -> None:
        for line in lines:
            self.write(line)

    def __getattr__(self, name: str) -> Any:
        if name == "buffer":
            raise AttributeError(name)
        return getattr(self._stream, name)
