"""Values as the text and Markdown renderers show them: one compact line per value, long
strings shortened in the middle, refs as `(known after apply)`, multi-line strings as line
diffs, and every control character escaped, so that a value taken from a manifest or from
the live API can never colour a terminal, move its cursor, reorder text or end a line."""

from __future__ import annotations

import difflib
import re
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from rich.cells import cell_len

from reconciler.plans import Action, Change, FieldChange, Ref
from reconciler.plans.text import clean, shorten

KNOWN_AFTER_APPLY = "(known after apply)"

MAX_STRING = 100  # characters of a string value shown whole; longer ones lose their middle
MAX_COLLECTION = 200  # characters of a list or dict shown before the rest is only counted
MAX_LINE = 160  # characters of one line of a multi-line string
MAX_LINES = 40  # lines of a multi-line string (or of its diff) shown
CONTEXT_LINES = 1  # unchanged lines shown around each changed one in a multi-line diff
MAX_LABEL_WIDTH = 30  # field names are aligned up to this width; longer ones stick out

_BARE_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def comments(change: Change) -> list[tuple[str, str]]:
    """The `# ...` lines under a change's address, each with its style in the text plan:
    its reason; `from FILE:LINE` with the overlays that refined it (`from
    baseline/people.yaml:9, refined at tenants/acme/overlays.yaml:5`); and per rename hint
    (planning/renames.py) the look-alike, then the line to add for a rename."""
    found = [(line, "dim") for line in clean_lines(change.reason)] if change.reason else []
    if change.source:
        said = f"from {change.source}"
        if change.refined_at:
            said += ", refined at " + ", ".join(change.refined_at)
        found.append((clean(said), "dim"))
    for hint in change.rename_hints:
        rename = f"if it is, add `{clean(hint.previously)}` to this entry to rename it in place"
        found.append((clean(hint.reason), "yellow"))
        found.append((f"{rename} (its id kept); apply as planned creates a new one", "yellow"))
    return found


def clean_lines(text: str) -> list[str]:
    """`text` split on line ends, each line cleaned (for messages and reasons)."""
    return [clean(line) for line in text.split("\n")]


def quote(text: str, limit: int = MAX_STRING) -> str:
    """A string value in double quotes; when shortened its full length follows the quotes,
    so that `...` inside a value is never mistaken for a cut."""
    escaped = _escape_string(shorten(text, limit))
    if len(text) <= limit:
        return f'"{escaped}"'
    return f'"{escaped}" ({len(text):,} characters)'


def _escape_string(text: str) -> str:
    return clean(text.replace("\\", "\\\\").replace('"', '\\"'))


def format_value(value: Any, limit: int = MAX_COLLECTION) -> str:
    """One compact line: `null`, `true`, `12`, `"text"`, `["a", "b"]`, `{key: "value"}`."""
    if isinstance(value, Ref):
        return KNOWN_AFTER_APPLY
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, str):
        return quote(value)
    if isinstance(value, Mapping):
        return "{" + _join_within(_items(value, limit), limit) + "}"
    if isinstance(value, list | tuple):
        return "[" + _join_within(_items(value, limit), limit) + "]"
    if isinstance(value, set | frozenset):
        shown = sorted((format_value(v, limit) for v in value), key=str)
        return "[" + _join_within(shown, limit) + "]"
    return clean(shorten(str(value), MAX_STRING))


def _items(value: Mapping[Any, Any] | list[Any] | tuple[Any, ...], limit: int) -> list[str]:
    """The items of a list, or the `key: value` entries of a dict, each formatted."""
    if isinstance(value, Mapping):
        return [f"{_key(str(k))}: {format_value(v, limit)}" for k, v in value.items()]
    return [format_value(v, limit) for v in value]


def _key(key: str) -> str:
    return key if _BARE_KEY.fullmatch(key) else quote(key)


def _join_within(items: list[str], limit: int) -> str:
    """Items joined with `, ` until `limit` characters, then how many were left out."""
    shown: list[str] = []
    used = 0
    for item in items:
        if shown and used + len(item) > limit:
            shown.append(f"... {len(items) - len(shown)} more")
            break
        shown.append(item)
        used += len(item) + 2
    return ", ".join(shown)


def is_multiline(value: Any) -> bool:
    """A string whose lines are worth showing one by one (a single trailing newline is
    not: it is shown as `\\n` inside the quotes, where it is visible)."""
    return isinstance(value, str) and "\n" in value.rstrip("\n")


def text_lines(text: str) -> list[str]:
    """The lines of a multi-line value, cleaned, shortened, at most `MAX_LINES` of them."""
    lines = [clean(shorten(line, MAX_LINE)) for line in text.split("\n")]
    if len(lines) > MAX_LINES:
        hidden = len(lines) - MAX_LINES
        lines = [*lines[:MAX_LINES], f"... {hidden} more lines"]
    return lines


def line_diff(before: str, after: str) -> list[tuple[str, str]]:
    """A line diff of two multi-line strings as (`-`|`+`|` `, line) pairs: changed lines
    with `CONTEXT_LINES` around them, long unchanged stretches counted, not shown."""
    old, new = before.split("\n"), after.split("\n")
    matcher = difflib.SequenceMatcher(None, old, new, autojunk=False)
    rows: list[tuple[str, str]] = []
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            rows += _context(old[i1:i2], first=i1 == 0, last=i2 == len(old))
            continue
        rows += [("-", line) for line in old[i1:i2]]
        rows += [("+", line) for line in new[j1:j2]]
    if len(rows) > MAX_LINES:
        hidden = len(rows) - MAX_LINES
        rows = [*rows[:MAX_LINES], (" ", f"... {hidden} more lines")]
    return [(sign, clean(shorten(line, MAX_LINE))) for sign, line in rows]


def _context(lines: list[str], *, first: bool, last: bool) -> list[tuple[str, str]]:
    keep_before = 0 if first else CONTEXT_LINES  # lines after the previous change
    keep_after = 0 if last else CONTEXT_LINES  # lines before the next change
    if len(lines) <= keep_before + keep_after + 1:
        return [(" ", line) for line in lines]
    hidden = len(lines) - keep_before - keep_after
    rows = [(" ", line) for line in lines[:keep_before]]
    rows.append((" ", f"... {hidden} unchanged lines"))
    rows += [(" ", line) for line in lines[len(lines) - keep_after :]]
    return rows


def sides(action: Action) -> tuple[bool, bool]:
    """Which of (before, after) a field change shows: a create shows only what will be, a
    delete only what was, everything else both."""
    return action is not Action.create, action is not Action.delete


@dataclass(frozen=True)
class FieldView:
    """How one field change is shown, whatever the format: either one line (`before`
    and/or `after`, each None when that side is not shown), or a `heading` followed by
    nested `rows` of (`-`|`+`|` `, text) and an optional `closing` line."""

    before: str | None = None
    after: str | None = None
    heading: str = ""
    rows: tuple[tuple[str, str], ...] = ()
    closing: str = ""


def field_view(field: FieldChange, action: Action) -> FieldView:
    show_before, show_after = sides(action)
    before, after = field.before, field.after
    if not (show_before and show_after):
        value = after if show_after else before
        if is_multiline(value):
            rows = tuple((" ", line) for line in text_lines(value))
            return FieldView(heading="<<EOT", rows=rows, closing="EOT")
        text = format_value(value)
        return FieldView(after=text) if show_after else FieldView(before=text)
    if isinstance(before, str) and isinstance(after, str):
        if is_multiline(before) or is_multiline(after):
            return FieldView(heading="<<EOT", rows=tuple(line_diff(before, after)), closing="EOT")
        return FieldView(*quote_pair(before, after))
    delta = collection_delta(before, after)
    if delta is not None:
        return delta
    return FieldView(format_value(before), format_value(after))


def quote_pair(before: str, after: str) -> tuple[str, str]:
    """Two strings quoted; when shortening would hide their difference (it lies in the
    middle), both are shown from a little before the first character that differs."""
    shown = quote(before), quote(after)
    if shown[0] != shown[1] or before == after:
        return shown
    # Both shortened forms are alike, so the lengths are the same and so are the heads:
    # the first difference lies past the head (66 characters), and the window starts 20
    # characters before it, never at 0.
    common = next(i for i in range(len(before)) if before[i] != after[i])
    start = common - MAX_STRING // 5
    return _window(before, start), _window(after, start)


def _window(text: str, start: int) -> str:
    """`text` from `start` (past its beginning) for `MAX_STRING` characters."""
    part = text[start : start + MAX_STRING]
    escaped = _escape_string(part)
    closing = '"...' if start + MAX_STRING < len(text) else '"'
    return f'..."{escaped}{closing} ({len(text):,} characters)'


def collection_delta(before: Any, after: Any) -> FieldView | None:
    """For two lists (or two dicts) too long to show whole, the items removed and added
    (`key: value` entries for dicts) instead of two cut-off values that look alike."""
    if isinstance(before, list) and isinstance(after, list):
        unit = ("item", "items")
    elif isinstance(before, Mapping) and isinstance(after, Mapping):
        unit = ("entry", "entries")
    else:
        return None
    old, new = _items(before, MAX_COLLECTION), _items(after, MAX_COLLECTION)
    if not (_abridged(old) or _abridged(new)):
        return None  # both fit on their line: show them whole
    rows = [("-", item) for item in _missing(old, new)] + [
        ("+", item) for item in _missing(new, old)
    ]
    if len(rows) > MAX_LINES:
        rows = [*rows[:MAX_LINES], (" ", f"... {len(rows) - MAX_LINES} more")]
    heading = f"{plural(len(old), *unit)} -> {plural(len(new), *unit)}"
    return FieldView(heading=heading, rows=tuple(rows))


def _abridged(items: list[str]) -> bool:
    return _join_within(items, MAX_COLLECTION) != ", ".join(items)


def _missing(items: list[str], others: list[str]) -> list[str]:
    """`items` not in `others`, counting repeats (a multiset difference), in order."""
    remaining = Counter(others)
    out = []
    for item in items:
        if remaining[item]:
            remaining[item] -= 1
        else:
            out.append(item)
    return out


def label_width(fields: tuple[FieldChange, ...]) -> int:
    """The width field names are padded to so that values line up within one change."""
    widths = [_label_cells(f.path)[1] for f in fields]
    return max((w for w in widths if w <= MAX_LABEL_WIDTH + 1), default=0)


def label(path: str, width: int) -> str:
    """`path:` padded with spaces to `width` terminal cells (wide characters count two)."""
    text, cells = _label_cells(path)
    return text + " " * max(width - cells, 0)


@lru_cache(maxsize=4096)
def _label_cells(path: str) -> tuple[str, int]:
    """`path:` cleaned, and its width in terminal cells. A plan's changes of one kind name
    the same few fields: a 1,100-change plan has thousands of labels and a few dozen
    distinct paths, each cleaned and measured once here instead of twice per field."""
    text = clean(path) + ":"
    return text, cell_len(text)


def headline(change: Change) -> str:
    """`companies["Acme Corp"]`, or `automation_rules["101"] (disable)` where the symbol
    alone does not say which of update, enable and disable it is, and `(was ...)` after
    the address of a rename."""
    named = change.action in (Action.enable, Action.disable)
    suffix = f" ({change.action.value})" if named else ""
    if change.former_address is not None:
        suffix += f" (was {clean(change.former_address)})"
    return clean(change.address) + suffix


def plural(count: int, word: str, words: str = "") -> str:
    """`1 value`, `2 values` (`words`: the plural when it is not `word` + `s`)."""
    return f"{count:,} " + (word if count == 1 else words or f"{word}s")
