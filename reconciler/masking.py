"""Credentials never reach an output: their values are replaced by `***` wherever they
appear (DESIGN §5), whatever the path they took there (a value pasted into a manifest, an
API error quoting a header, an exception's message).

The credential variables are `HELPDESK_TOKEN`, `HELPDESK_PASSWORD`, `WORKSPACE_API_KEY`
and any named in `RECONCILER_SECRET_VARIABLES` (names separated by commas or spaces). A
manifest may not refer to any of them as `${NAME}` (manifest/variables.py), and the CLI
masks their values in everything it writes: stdout and stderr (plans in every format,
messages, errors), saved plans and the apply log.

Each value is also masked in the forms an output may give it: JSON-escaped, with control
characters escaped (as problem messages show them) and URL-encoded (`%20` and `+` for a
space). Values shorter than `MIN_MASKED` characters are not masked: hiding every `a` would
make output unreadable, and a credential that short protects nothing.

The clients register what they send (`register()`, from clients/auth.py): the credential
whatever variable it came from, and the header value they build from it. A Basic
`base64(username:password)` is masked whole, and so is any prefix of it after `Basic `
(a server quoting the header cut short), so `Basic YWRtaW46...` never shows.

Files of output (saved plans, comment parts, exported manifests) are written through
`write_text()`.

Under GitHub Actions (`GITHUB_ACTIONS=true`) the runner executes a line of the job log
that starts with `::` (after leading white space) or holds `##[`: `::add-mask::`,
`::stop-commands::`, `::error file=...::`. A manifest value, a live name or a server's
error text may hold such a line, so the streams neutralise every one (`neutralise()`: a
zero-width joiner, U+200D, which the runner does not trim, before the `::` or inside the
`##[`) unless it is a command the product writes on purpose (`allow_commands()`, the
annotations of report/annotations.py), and then only as many times as it was allowed.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import threading
from collections import Counter
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import IO, Any
from urllib.parse import quote, quote_plus

from reconciler.errors import UsageError

REDACTED = "***"
MIN_MASKED = 4
CREDENTIAL_VARIABLES = ("HELPDESK_TOKEN", "HELPDESK_PASSWORD", "WORKSPACE_API_KEY")
EXTRA_VARIABLES_SETTING = "RECONCILER_SECRET_VARIABLES"


def credential_names(env: Mapping[str, str]) -> list[str]:
    """The names of the credential variables: the built-in ones and the extra ones."""
    extra = re.split(r"[\s,]+", env.get(EXTRA_VARIABLES_SETTING, "").strip())
    return list(dict.fromkeys([*CREDENTIAL_VARIABLES, *(name for name in extra if name)]))


# `Basic <base64>` as a server may quote it, possibly cut short (`...`, `…` or nothing).
_BASIC = re.compile(r"(?i)\bBasic(?:\s+|%20|\+)([A-Za-z0-9+/]+=*)")


def _forms(value: str) -> set[str]:
    """The forms in which an output may show `value`."""
    return {
        value,
        json.dumps(value)[1:-1],
        json.dumps(value, ensure_ascii=False)[1:-1],
        value.encode("unicode_escape").decode("ascii"),
        quote(value, safe=""),
        quote(value),
        quote_plus(value),
    }


class Masker:
    """Replaces each of `values` (and its escaped forms) by `***` in text; `add()` masks
    more from then on (the same object, so the streams already masking see them)."""

    def __init__(self, values: Iterable[str]) -> None:
        self._forms: set[str] = set()
        self._basic: list[str] = []  # Basic tokens: base64(username:password)
        self._pattern: re.Pattern[str] | None = None
        self._compiled = 0  # how many forms `_pattern` holds
        self._ordered: tuple[str, ...] = ()  # the forms `_pattern` holds
        self._lock = threading.Lock()  # a progress display writes from its own thread
        self._commands: Counter[str] = Counter()  # workflow commands written on purpose
        self.add(values)

    def allow_commands(self, lines: Iterable[str]) -> None:
        """Let each of `lines` through the neutraliser once, whole and as it is."""
        with self._lock:
            self._commands.update(lines)

    def take_command(self, line: str) -> bool:
        """Whether `line` is a command allowed (and not yet written); it is then used up."""
        with self._lock:
            if self._commands[line] <= 0:
                return False
            self._commands[line] -= 1
            return True

    def add(self, values: Iterable[str]) -> None:
        forms = {form for value in values if len(value) >= MIN_MASKED for form in _forms(value)}
        with self._lock:
            self._forms |= forms

    def _current(self) -> tuple[re.Pattern[str] | None, tuple[str, ...]]:
        """The pattern of every form added so far and those forms, compiled when text is
        first masked after an `add`: a fleet registers three credentials per tenant
        before printing anything, and compiling the growing pattern at each was
        quadratic (2 s of CPU for 100 tenants)."""
        with self._lock:
            if len(self._forms) != self._compiled:
                ordered = sorted(self._forms, key=len, reverse=True)  # the longest wins
                self._pattern = re.compile("|".join(map(re.escape, ordered)))
                self._compiled, self._ordered = len(self._forms), tuple(ordered)
            return self._pattern, self._ordered

    def add_basic(self, token: str) -> None:
        """Mask the Basic token `token` (base64 of `username:password`) and, after
        `Basic`, every prefix of it of at least `MIN_MASKED` characters."""
        self.add([token])
        self._basic.append(token)

    def __bool__(self) -> bool:
        return bool(self._forms) or bool(self._basic)

    def mask(self, text: str) -> str:
        if self._basic:
            text = _BASIC.sub(self._cut_basic, text)
        pattern, forms = self._current()
        # The pattern matches only where one of its forms is in the text: a substring
        # search per form is a tenth of the pattern's scan of text that holds none (the
        # pattern tries every form at almost every position; a fleet's holds several
        # forms per tenant, and its output grows with the fleet too: issue 23).
        if pattern is None or not any(form in text for form in forms):
            return text
        return pattern.sub(REDACTED, text)

    def _cut_basic(self, match: re.Match[str]) -> str:
        shown = match.group(1)
        for token in self._basic:
            if len(shown) >= MIN_MASKED and (token.startswith(shown) or shown.startswith(token)):
                return match.group(0)[: match.start(1) - match.start(0)] + REDACTED
        return match.group(0)


_active = Masker(())


def install(env: Mapping[str, str]) -> Masker:
    """Masks the values of the credential variables of `env` from now on in `mask()`."""
    global _active
    _active = Masker(env[name] for name in credential_names(env) if env.get(name))
    return _active


def mask(text: str) -> str:
    """The text with every credential installed by `install()` replaced by `***`."""
    return _active.mask(text)


def register(*values: str) -> None:
    """Mask `values` from now on, in every output: what a client sends is a secret
    whatever variable (or embedded sandbox) it came from."""
    _active.add(values)


def register_basic(token: str) -> None:
    """Mask a Basic authentication token (see `Masker.add_basic`)."""
    _active.add_basic(token)


def allow_commands(lines: Iterable[str]) -> None:
    """The workflow commands the product writes on purpose (report/annotations.py): each
    passes the neutraliser of the standard streams once, as it is."""
    _active.allow_commands(lines)


# What the runner trims before looking for `::`: white space, and to be safe the
# zero-width characters some versions of Unicode called white space.
_LEADING = re.compile("^[\\s\u180e\u200b\u200c\u2060\ufeff]*")
_JOINER = "\u200d"  # not trimmed: a line starting with it is no command
_SPLIT_LEGACY = "##" + _JOINER + "["  # `##[`, the runner's older form of a command
_LINE_ENDS = re.compile(r"(\r\n|\r|\n)")  # the runner reads `\r` alone as a line end too


def neutralise(line: str, *, ended: bool = True, start: bool = True) -> str:
    """`line` (one line of output, without its end) as the runner cannot execute it: a
    joiner before a leading `::` and inside every `##[`. A line not `ended` (flushed before
    its end, as a prompt is) may be continued by the next write: one that is only white
    space or a `:` so far, or ends in `#`, gets a joiner too, so that no continuation can
    make it a command. Not at the `start` of a line (the rest of one made safe to
    continue), only `##[` and a last `#` are left to neutralise."""
    line = line.replace("##[", _SPLIT_LEGACY)
    rest = _LEADING.sub("", line)
    body = len(line) - len(rest)
    if start and (rest.startswith("::") or (not ended and rest in ("", ":"))):
        line = line[:body] + _JOINER + rest
    if not ended and line.endswith("#"):
        line += _JOINER
    return line


def write_text(path: Path, text: str) -> None:
    """Write a file of output: masked, whole or not at all (a temporary file renamed);
    a path that cannot be written is a `UsageError` naming it and why."""
    temporary = path.with_name(f".{path.name}.partial")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        temporary.write_text(mask(text), encoding="utf-8")
        os.replace(temporary, path)
    except OSError as exc:
        with contextlib.suppress(OSError):  # not made, or not removable: either way, gone
            temporary.unlink()
        raise UsageError(f"cannot write {path}: {unwritable_reason(exc, path)}") from None


def unwritable_reason(exc: OSError, path: Path) -> str:
    """Why `path` cannot be written, in words (`out is a file, not a directory`, ...)."""
    if isinstance(exc, NotADirectoryError | FileExistsError):
        parent = next((p for p in path.parents if p.is_file()), None)
        return f"{parent} is a file, not a directory" if parent else "a part of it is a file"
    if isinstance(exc, IsADirectoryError):
        return "it is a directory"
    if isinstance(exc, PermissionError):
        return "permission denied"
    return exc.strerror or type(exc).__name__


class MaskingStream:
    """A text stream that masks what is written to it before passing it on.

    Text is held back to the end of a line (or the next flush) so that a value written in
    two pieces is still masked. It has no `buffer`: writers that would go around the text
    layer find none and write here, bytes too (click's `echo` of bytes, as its shell
    completion writes its answer), which are decoded and masked like text. Under GitHub
    Actions (`commands`, by default from `GITHUB_ACTIONS`) its lines are neutralised."""

    def __init__(self, stream: IO[str], masker: Masker, *, commands: bool | None = None) -> None:
        self._stream = stream
        self._masker = masker
        self._pending = ""
        actions = os.environ.get("GITHUB_ACTIONS") == "true"
        self._commands = actions if commands is None else commands
        self._line_start = True  # whether the next character written starts a line

    def write(self, text: str | bytes) -> int:
        if isinstance(text, bytes | bytearray):
            text = bytes(text).decode(getattr(self._stream, "encoding", None) or "utf-8", "replace")
        if not isinstance(text, str):
            raise TypeError(f"write() argument must be str, not {type(text).__name__}")
        self._pending += text
        end = self._pending.rfind("\n") + 1
        if end:
            self._stream.write(self._safe(self._masker.mask(self._pending[:end])))
            self._pending = self._pending[end:]
        return len(text)

    def flush(self) -> None:
        if self._pending:
            self._stream.write(self._safe(self._masker.mask(self._pending)))
            self._pending = ""
        self._stream.flush()

    def _safe(self, text: str) -> str:
        """`text` with no line the runner would execute (when neutralising commands)."""
        if not self._commands:
            return text
        parts = _LINE_ENDS.split(text)  # line, end, line, end, ..., the rest of a line
        for index in range(0, len(parts), 2):
            line, ended = parts[index], index + 1 < len(parts)
            if not (ended or line):
                continue
            if ended and self._line_start and self._masker.take_command(line):
                # A command written on purpose: its `::` stays, a `##[` in its text
                # does not (the runner reads the line as one command either way).
                parts[index] = line.replace("##[", _SPLIT_LEGACY)
            else:
                parts[index] = neutralise(line, ended=ended, start=self._line_start)
            self._line_start = ended
        return "".join(parts)

    def writelines(self, lines: Iterable[str]) -> None:
        for line in lines:
            self.write(line)

    def __getattr__(self, name: str) -> Any:
        if name == "buffer":
            raise AttributeError(name)
        return getattr(self._stream, name)
