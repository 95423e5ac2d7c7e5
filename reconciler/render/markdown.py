"""The plan as Markdown for a pull-request comment: a title, the summary table, the errors
and warnings as a visible list, then the changes folded in one `<details>` block per kind,
each holding a ```diff code block (`+` create, `-` delete, `!` update/enable/disable, and
the old and new value of each field as `-`/`+` lines).

The comment is kept below `limit` characters (GitHub refuses comments over 65,536): what
does not fit is dropped whole from the end, a change at a time, so a cut never falls
inside a code block or an HTML tag, and a note says how much is missing and where to find
it. Values come from manifests and from the live API, so none may break the comment:
inside code blocks the fence is longer than any run of backticks in the content, and
outside them Markdown and HTML characters are escaped and `@mentions` and `#123`
references defused.
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterable

from reconciler.changes import Action, Change, Diagnostic, FieldChange, Plan
from reconciler.render.text import summary_text
from reconciler.render.values import (
    clean,
    clean_lines,
    field_view,
    headline,
    label,
    label_width,
    plural,
    shorten,
    sides,
)

DEFAULT_LIMIT = 60_000
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


def format_markdown(
    plan: Plan, *, limit: int = DEFAULT_LIMIT, title: str = "reconciler plan"
) -> str:
    """The comment, shorter than `limit` characters, ending in a newline."""
    head = _head(plan, title)
    total_diagnostics = len(plan.errors) + len(plan.warnings)
    # Room for the longest note there could be, so that adding it never breaks the limit.
    reserve = len(
        _cut_note(len(plan.changes), len(plan.changes), total_diagnostics, total_diagnostics, limit)
    )
    budget = limit - 1 - len(head) - reserve
    if budget < 0:
        raise ValueError(f"a Markdown plan needs a limit above {limit - budget:,} characters")
    diagnostics, diagnostics_shown = _diagnostics(plan, budget)
    details, changes_shown = _details(plan.changes, budget - len(diagnostics))
    out = head + diagnostics + details
    changes_cut = len(plan.changes) - changes_shown
    diagnostics_cut = total_diagnostics - diagnostics_shown
    if changes_cut or diagnostics_cut:
        out += _cut_note(changes_cut, len(plan.changes), diagnostics_cut, total_diagnostics, limit)
    return out.rstrip("\n") + "\n"


def _head(plan: Plan, title: str) -> str:
    summary = plan.summary
    rows = "".join(f"| {action.value} | {summary[action.value]:,} |\n" for action in Action)
    sentences = "".join(f"**{line}**\n\n" for line in summary_text(plan).split("\n"))
    return f"## {inline(title)}\n\n| action | count |\n|:--|--:|\n{rows}\n{sentences}"


def _cut_note(
    changes_cut: int, changes: int, diagnostics_cut: int, diagnostics: int, limit: int
) -> str:
    missing = []
    if changes_cut:
        missing.append(f"{changes_cut:,} of {plural(changes, 'change')}")
    if diagnostics_cut:
        missing.append(f"{diagnostics_cut:,} of {diagnostics:,} errors and warnings")
    return (
        f"> **Not shown:** {' and '.join(missing)}, to keep this comment under "
        f"{limit:,} characters. The JSON plan has everything: `reconciler plan --format json`, "
        "or the plan file saved as an artifact of this CI run.\n"
    )


# -- errors and warnings --------------------------------------------------------------


def _diagnostics(plan: Plan, budget: int) -> tuple[str, int]:
    """The errors, then the warnings, as many as fit in `budget` (in order)."""
    sections: list[str] = []
    used = shown = 0
    for heading, diagnostics in (("Errors", plan.errors), ("Warnings", plan.warnings)):
        if not diagnostics:
            continue
        header = f"### {heading} ({len(diagnostics):,})\n\n"
        items: list[str] = []
        for diagnostic in diagnostics:
            item = diagnostic_item(diagnostic)
            cost = len(item) + (0 if items else len(header) + 1)  # + the list's closing "\n"
            if used + cost > budget:
                break
            items.append(item)
            used += cost
        if items:
            sections.append(header + "".join(items) + "\n")
        shown += len(items)
        if len(items) < len(diagnostics):
            break  # cut from the end: nothing after the first one that did not fit
    return "".join(sections), shown


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


def _details(changes: Iterable[Change], budget: int) -> tuple[str, int]:
    """One folded section per kind (kinds in the order they first appear, changes in plan
    order within a kind), as many changes as fit in `budget`."""
    by_kind: dict[str, list[Change]] = {}
    for change in changes:
        by_kind.setdefault(change.kind, []).append(change)
    sections: list[str] = []
    used = shown = 0
    for kind, members in by_kind.items():
        counts = _counts(members)
        blocks: list[str] = []
        body_length = longest_run = 0
        for change in members:
            block = diff_block(change)
            run = max(longest_run, _longest_backtick_run(block))
            length = body_length + len(block) + (1 if blocks else 0)  # "\n" between blocks
            # Measured with the frame of a cut section, the longer form of its summary, so
            # that the section finally written is never longer than what was measured.
            opening, closing = _frame(kind, counts, len(blocks) + 1, run, cut=True)
            if used + len(opening) + length + len(closing) > budget:
                break
            blocks.append(block)
            body_length, longest_run = length, run
        if blocks:
            cut = len(blocks) < len(members)
            opening, closing = _frame(kind, counts, len(blocks), longest_run, cut=cut)
            sections.append(opening + "\n".join(blocks) + closing)
            used += len(sections[-1])
        shown += len(blocks)
        if len(blocks) < len(members):
            break
    return "".join(sections), shown


def _counts(changes: list[Change]) -> dict[Action, int]:
    counts = dict.fromkeys(Action, 0)
    for change in changes:
        counts[change.action] += 1
    return counts


def _frame(
    kind: str, counts: dict[Action, int], shown: int, longest_run: int, *, cut: bool
) -> tuple[str, str]:
    """What goes before and after a section's diff lines: the folded `<details>` with its
    summary, and a code fence longer than any run of backticks inside."""
    summary = ", ".join(f"{n:,} to {action.value}" for action, n in counts.items() if n)
    if cut:
        summary += f" ({shown:,} of {sum(counts.values()):,} shown)"
    fence = "`" * max(3, longest_run + 1)
    opening = f"<details><summary>{html_text(kind)}: {summary}</summary>\n\n{fence}diff\n"
    return opening, f"{fence}\n\n</details>\n\n"


def diff_block(change: Change) -> str:
    """One change as diff lines, ending in a newline."""
    lines = [f"{DIFF_SIGNS[change.action]} {headline(change)}"]
    if change.reason:
        lines += [f"  # {line}" for line in clean_lines(change.reason)]
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
    ticks = "`" * (_longest_backtick_run(content) + 1)
    if content[:1] in ("`", " ") or content[-1:] in ("`", " "):
        content = f" {content} "  # one space each side is stripped again by the renderer
    return f"{ticks}{content}{ticks}"


def _longest_backtick_run(text: str) -> int:
    return max((len(run) for run in _BACKTICKS.findall(text)), default=0)
