"""The pieces of the Markdown plan (`markdown.py` packs them into parts): a change as a
```diff block (`+` create, `-` delete, `!` update/enable/disable, and the old and new
value of each field as `-`/`+` lines), an error or warning as a list item, the coverage
table, the sections the parts are packed from, and the escaping that keeps values from
breaking a comment. Values come from manifests and from the live API, so none may: inside
code blocks the fence is longer than any run of backticks in the content, and outside
them Markdown and HTML characters are escaped and `@mentions` and `#123` references
defused.

With `--source-url` each change links to its manifest line: a link cannot sit inside a
code block, so each change then gets its own small diff block under its linked address.
"""

from __future__ import annotations

import html
import re
from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import PurePosixPath, PureWindowsPath
from urllib.parse import quote, urlsplit

from reconciler.applied.labels import Cause
from reconciler.errors import UsageError
from reconciler.plans import Action, Change, Diagnostic, FieldChange, Plan, address
from reconciler.plans.text import clean, shorten
from reconciler.render.values import (
    comments,
    field_view,
    headline,
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
    lines += [f"  # {text}" for text, _ in comments(change)]
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


# -- sections and links --------------------------------------------------------------


@dataclass(frozen=True)
class Section:
    """Items under an opening, closed by `closing`; when the items go on in a later part
    the section is opened there again with `reopening`. `lines` sections (code blocks)
    may split an item between two of its lines."""

    opening: str
    closing: str = ""
    items: tuple[str, ...] = ()
    reopening: str = ""
    separator: str = ""
    lines: bool = False


def group_by_kind(changes: Sequence[Change]) -> dict[str, list[Change]]:
    """Kinds in the order they first appear, changes in plan order within a kind."""
    by_kind: dict[str, list[Change]] = {}
    for change in changes:
        by_kind.setdefault(change.kind, []).append(change)
    return by_kind


def kind_summary(members: Sequence[Change]) -> str:
    counts = Counter(change.action for change in members)
    return ", ".join(f"{counts[a]:,} to {a.value}" for a in Action if counts[a])


def _linked(base: str, source: str) -> str:
    """An overlay's `file:line`, linked to its line where `source_link` can."""
    link = source_link(base, source)
    return f"[{code_span(source)}]({link})" if link else code_span(source)


def checked_source_url(base: str) -> str:
    """`base` (`--source-url`) if it is an http:// or https:// URL with a host, else a
    `UsageError`: it becomes the start of links in comments and pages, where a
    `javascript:` or `data:` one would run or show whatever it holds when clicked."""
    try:
        parts = urlsplit(base)
    except ValueError:
        parts = None
    if parts is None or parts.scheme.lower() not in ("http", "https") or not parts.hostname:
        raise UsageError(
            f"--source-url {base!r}: not an http:// or https:// URL (e.g. "
            "https://github.com/ORG/REPO/blob/COMMIT)"
        )
    return base


def source_link(base: str, source: str) -> str | None:
    """`BASE/path/to/file.yaml#L12` for the source `path/to/file.yaml:12`; None for a
    file named by an absolute path or one above the working directory (`../x.yaml`):
    BASE stands for the working directory (the repository's root in CI), so such a link
    would lead nowhere; the change's block still names the source. BASE is checked once,
    where it is given (`checked_source_url`)."""
    file, _, line = source.rpartition(":")
    relative = PurePosixPath(file.replace("\\", "/"))
    if relative.is_absolute() or ".." in relative.parts or PureWindowsPath(file).drive:
        return None
    path = quote(file.removeprefix("./"))  # keeps "/" (quote's default)
    return f"{base.rstrip('/').replace(')', '%29')}/{path}#L{line}"


def kind_sections(
    changes: Sequence[Change],
    base: str | None,
    limit: int | None,
    causes: Mapping[str, Cause] | None = None,
) -> list[Section]:
    """One folded section per kind (kinds in the order they first appear, changes in plan
    order within a kind), each change's diff block with its cause when `causes` has one.
    Without `base`, the kind's blocks make one code block; with it (`--source-url`), each
    change's address is linked to its manifest line above a block of its own."""
    sections = []
    for kind, members in group_by_kind(changes).items():
        blocks = [diff_block(c, None if causes is None else causes.get(c.address)) for c in members]
        title = html_text(kind)
        opening = f"<details><summary>{title}: {kind_summary(members)}</summary>\n\n"
        reopening = f"<details><summary>{title} (continued)</summary>\n\n"
        if base is None:
            fence = "`" * max(3, max(map(longest_backtick_run, blocks)) + 1)
            section = Section(
                opening=f"{opening}{fence}diff\n",
                reopening=f"{reopening}{fence}diff\n",
                closing=f"{fence}\n\n</details>\n\n",
                items=tuple(blocks),
                separator="\n",
                lines=True,
            )
        else:
            items = [
                item
                for change, block in zip(members, blocks, strict=True)
                for item in _linked_blocks(change, block, base, limit)
            ]
            section = Section(opening, "</details>\n\n", tuple(items), reopening)
        sections.append(section)
    return sections


def _linked_blocks(change: Change, block: str, base: str, limit: int | None) -> list[str]:
    """The change's address linked to its manifest line, then its diff block; a block too
    long for a part is cut between lines into several blocks under the same link."""
    name = code_span(change.address)
    link = source_link(base, change.source) if change.source else None
    head = f"[{name}]({link})" if link else name
    if change.refined_at:
        head += " (refined at " + ", ".join(_linked(base, at) for at in change.refined_at) + ")"
    if change.former_address is not None:
        head += f" (was {code_span(change.former_address)})"
    fence = "`" * max(3, longest_backtick_run(block) + 1)
    pieces = [block] if limit is None else split_lines(block, max(200, limit // 3))
    items = []
    for index, piece in enumerate(pieces):
        label = head if index == 0 else f"{head} (continued)"
        items.append(f"{label}\n\n{fence}diff\n{piece}{fence}\n\n")
    return items


def split_lines(item: str, room: int) -> Iterator[str]:
    """`item` in pieces of at most `room` characters, cut between lines (a single line
    longer than that is cut inside it: nothing is dropped)."""
    piece = ""
    for line in item.splitlines(keepends=True):
        while len(line) > room:
            if piece:
                yield piece
                piece = ""
            yield line[: room - 1] + "\n"
            line = line[room - 1 :]
        if len(piece) + len(line) > room:
            yield piece
            piece = ""
        piece += line
    if piece:
        yield piece


# -- coverage and unmanaged objects (live/coverage.py); the JSON plan lists every key ----

MAX_UNMANAGED_ITEMS = 50  # keys of a kind listed, each an item of its own


def coverage_table(plan: Plan) -> str | None:
    """The table of part 1: per kind the live and managed objects, the share and the count
    of unmanaged ones; the kinds not read in full say why. None when the plan has no
    coverage to show."""
    found = plan.coverage
    if found is None or not (found.kinds or found.not_read_in_full):
        return None
    head = "| kind | live | managed | coverage | unmanaged |\n|:--|--:|--:|--:|--:|\n"
    rows = "".join(
        f"| {inline(kind)} | {c.live:,} | {c.managed:,} | {c.percent:g}% | {len(c.unmanaged):,} |\n"
        for kind, c in found.kinds.items()
    )
    rows += "".join(
        f"| {inline(kind)} | | | not read in full: {inline(why)} | |\n"
        for kind, why in found.not_read_in_full.items()
    )
    return head + rows


def unmanaged_items(plan: Plan) -> tuple[str, ...]:
    """List items: the first unmanaged objects of each kind by address, then how many more
    the JSON plan lists."""
    found = plan.coverage
    if found is None:
        return ()
    items: list[str] = []
    for kind, figures in found.kinds.items():
        shown = figures.unmanaged[:MAX_UNMANAGED_ITEMS]
        items += [f"- {code_span(shorten(address(kind, key), 300))}\n" for key in shown]
        more = len(figures.unmanaged) - len(shown)
        if more > 0:
            items.append(f"- {more:,} more of {inline(kind)} (the JSON plan lists every one)\n")
    return tuple(items)
