"""The pieces of the Markdown plan (`markdown.py` assembles them into parts): a change as
a ```diff block (`+` create, `-` delete, `!` update/enable/disable, and the old and new
value of each field as `-`/`+` lines), an error or warning as a list item, and the
escaping that keeps values from breaking a comment. Values come from manifests and from
the live API, so none may: inside code blocks the fence is longer than any run of
backticks in the content, and outside them Markdown and HTML characters are escaped and
`@mentions` and `#123` references defused.
"""

from __future__ import annotations

import html
import re

from reconciler.applied.labels import Cause
from reconciler.plans import Action, Change, Diagnostic, FieldChange
from reconciler.plans.text import clean, shorten
from reconciler.render.values import (
    clean_lines,
    field_view,
    from_line,
    headline,
    hint_lines,
    label,
    label_width,
    sides,
)

MAX_DIAGNOSTIC_TEXT = 1_000  # characters of one message or remedy; the JSON has them whole
FIELD_INDENT = "    "

DIFF_SIGNS = {
    Action.create: "+",
    Action.delete: "-",
    Action.update: "!",
    Action.enable: "!",
    Action.disable: "!",
}

# Backslash-escape what Markdown would format, turn what HTML would parse into entities,
# and put a zero-width space after `@` and before digits after `#` so that a value can
# neither mention a user or team nor link an issue.
_INLINE_SPECIAL = re.compile(r"(?P<mention>@|#(?=\d))|[\\`*_\[\]~|&<>#]")
_ENTITIES = {"&": "&amp;", "<": "&lt;", ">": "&gt;"}
_MENTIONS = re.compile(r"(?P<mention>@|#(?=\d))")
# What would open a block at the start of a line (a list item, an ordered list): only the
# first line of a text can be there, the others follow a `<br>` on the same line.
_BLOCK_START = re.compile(r"(?P<number>\d{1,9})(?P<delimiter>[.)])|(?P<marker>[-+])")
_BACKTICKS = re.compile(r"`+")


def diagnostic_item(diagnostic: Diagnostic) -> str:
    """``- `address` (`file:line:column`): message<br>**Remedy:** remedy`` on one line."""
    subject = []
    if diagnostic.address:
        subject.append(code_span(diagnostic.address))
    if diagnostic.location:
        subject.append(f"(at {code_span(diagnostic.location)})")
    item = "- " + (" ".join(subject) + ": " if subject else "")
    item += inline(shorten(diagnostic.message, MAX_DIAGNOSTIC_TEXT))
    if diagnostic.remedy:
        item += "<br>**Remedy:** " + inline(shorten(diagnostic.remedy, MAX_DIAGNOSTIC_TEXT))
    return item + "\n"


# -- changes ----------------------------------------------------------------------------


def diff_block(change: Change, cause: Cause | None = None) -> str:
    """One change as diff lines, ending in a newline; `cause` (drift, pending) follows the
    address."""
    label = "" if cause is None else f" ({cause.value})"
    lines = [f"{DIFF_SIGNS[change.action]} {headline(change)}{label}"]
    if change.reason:
        lines += [f"  # {line}" for line in clean_lines(change.reason)]
    if change.source:
        lines.append(f"  # {from_line(change)}")
    lines += [f"  # {text}" for text in hint_lines(change)]
    width = label_width(change.fields)
    for field in change.fields:
        lines += _field_lines(field, change.action, width)
    return "\n".join(lines) + "\n"


def _field_lines(field: FieldChange, action: Action, width: int) -> list[str]:
    name = FIELD_INDENT + label(field.path, width)
    view = field_view(field, action)
    # One-sided views (creates, deletes) carry the change's own sign on every line; the
    # rows of a two-sided one carry their own `-`/`+` under a neutral heading.
    sign = " " if all(sides(action)) else DIFF_SIGNS[action]
    if view.heading:
        lines = [f"{sign} {name} {view.heading}"]
        lines += [f"{sign if s == ' ' else s} {FIELD_INDENT}    {text}" for s, text in view.rows]
        if view.closing:
            lines.append(f"{sign} {FIELD_INDENT}{view.closing}")
        return lines
    lines = []
    if view.before is not None:
        lines.append(f"- {name} {view.before}")
    if view.after is not None:
        lines.append(f"+ {name} {view.after}")
    return lines


# -- escaping ---------------------------------------------------------------------------


def inline(text: str) -> str:
    """`text` safe in Markdown running text: nothing formats, links, mentions or parses
    as HTML, nothing opens a block; line ends become `<br>` so that every text stays on
    the one line it was put on."""
    lines = [_INLINE_SPECIAL.sub(_escape_inline, clean(line)) for line in text.split("\n")]
    # Leading spaces would make an indented code block of a list item's text.
    first = lines[0].lstrip(" ")
    start = _BLOCK_START.match(first)
    if start and start.group("number"):
        first = f"{start.group('number')}\\{first[start.end('number') :]}"
    elif start:
        first = "\\" + first
    return "<br>".join([first, *lines[1:]])


def _escape_inline(match: re.Match[str]) -> str:
    char = match.group()
    if match.group("mention"):
        # A zero-width space after `@` or before the digits of `#12`: the text reads the
        # same, but GitHub neither notifies anyone nor links an issue.
        return f"{char}&#8203;"
    return _ENTITIES.get(char, "\\" + char)


def html_text(text: str) -> str:
    """`text` safe inside an HTML block, where Markdown escapes are not read: entities for
    what HTML would parse, and mentions and issue references defused."""
    return _MENTIONS.sub(_escape_inline, html.escape(clean(text), quote=False))


def code_span(text: str) -> str:
    """`text` as inline code, delimited by more backticks than it holds in a row."""
    content = clean(text)
    ticks = "`" * (longest_backtick_run(content) + 1)
    if content[:1] in ("`", " ") or content[-1:] in ("`", " "):
        content = f" {content} "  # one space each side is stripped again by the renderer
    return f"{ticks}{content}{ticks}"


def longest_backtick_run(text: str) -> int:
    return max((len(run) for run in _BACKTICKS.findall(text)), default=0)
