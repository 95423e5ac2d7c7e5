"""The plan as Markdown for pull-request comments (DESIGN §4), in parts that each fit in a
comment (GitHub refuses comments over 65,536 characters) and together hold every change:
nothing is ever cut, a longer plan only takes more parts (as Atlantis splits its comments).

Part 1 holds what a reviewer must see first: the counts per kind and action, the safety
brake's verdict, every removal and disable by address, and the errors; then come the
warnings, the values asserted on every apply, the notes (an implicit technician's access)
and the changes, folded in one `<details>` block per kind. A list or a kind that
does not fit in what is left of a part continues in the next one, between two items (a
change too long for a part by itself continues between two of its lines), so a part never
ends inside a code block or an HTML tag.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator, Mapping, Sequence

from reconciler.applied.labels import Cause
from reconciler.plans import Action, Change, Plan
from reconciler.render.markdown_blocks import (
    Section,
    checked_source_url,
    code_span,
    coverage_table,
    diagnostic_item,
    diff_block,
    group_by_kind,
    inline,
    kind_sections,
    split_lines,
    unmanaged_items,
)
from reconciler.render.text import is_removal, summary_text

__all__ = ["DEFAULT_LIMIT", "diff_block", "format_markdown", "markdown_parts"]

DEFAULT_LIMIT = 60_000
DEFAULT_TITLE = "reconciler plan"
MAX_ADDRESS = 300  # characters of an address in the removals list; the details have it whole
ASSERTED_LEAD = (
    "The API does not show these values, so they are not compared and are not changes "
    "(not in the counts, the exit code or the safety brake); `apply` sends them each time:"
)
UNMANAGED_LEAD = "Live objects no manifest entry names: not changes, `apply` leaves them alone."
COVERAGE_LEAD = (
    "**Coverage** (live objects the manifests manage; the others are unmanaged, not changes):"
)
_MOST_PARTS = 99_999  # the header is measured with this many parts, so it never grows


def format_markdown(
    plan: Plan,
    *,
    title: str = DEFAULT_TITLE,
    source_url: str | None = None,
    causes: Mapping[str, Cause] | None = None,
) -> str:
    """The whole plan as one Markdown document, however long (for `--format markdown` on
    stdout; `markdown_parts` is for comments)."""
    return markdown_parts(plan, limit=None, title=title, source_url=source_url, causes=causes)[0]


def markdown_parts(
    plan: Plan,
    *,
    limit: int | None = DEFAULT_LIMIT,
    title: str = DEFAULT_TITLE,
    source_url: str | None = None,
    causes: Mapping[str, Cause] | None = None,
) -> list[str]:
    """The plan in parts of at most `limit` characters each (one part when `limit` is
    None), each part ending in a newline, together naming every change. With
    `source_url` (the base of the manifests' blob URLs, e.g.
    `https://github.com/o/r/blob/SHA`), each change links to its manifest line. With
    `causes` (each change's label by address), each change and removal names its cause
    and the summary counts them."""
    changes = plan.changes
    base = checked_source_url(source_url) if source_url else None
    kinds = kind_sections(changes, base, limit, causes)
    unmanaged = unmanaged_items(plan)
    count = plan.coverage.unmanaged_count if plan.coverage is not None else 0
    last = [_list("Unmanaged objects", unmanaged, UNMANAGED_LEAD, count)] if unmanaged else []
    sections = [_summary(plan, causes), *_lists(plan, causes or {}), *kinds, *last]
    heading = inline(title)
    if limit is None:
        bodies = [_pack(sections, None)[0]]
    else:
        longest_header = len(_header(heading, _MOST_PARTS, _MOST_PARTS))
        budget = limit - longest_header - 1
        bodies = _pack(sections, budget)
    return [
        _header(heading, index, len(bodies)) + body.rstrip("\n") + "\n"
        for index, body in enumerate(bodies, start=1)
    ]


def _header(heading: str, index: int, total: int) -> str:
    if total == 1:
        return f"## {heading}\n\n"
    return f"## {heading} (part {index:,} of {total:,})\n\n"


# -- packing ------------------------------------------------------------------------------


def _pack(sections: Sequence[Section], budget: int | None) -> list[str]:
    """The sections laid out in part bodies of at most `budget` characters."""
    parts: list[str] = []
    body = ""
    for section in sections:
        if not section.items:  # atomic: a summary
            if budget is not None and body and len(body) + len(section.opening) > budget:
                parts.append(body)
                body = ""
            _check_fits(section.opening, budget)
            body += section.opening
            continue
        opening, segment, count = section.opening, "", 0
        for joined, piece in _pieces(section, budget):
            separator = section.separator if count and not joined else ""
            cost = len(separator) + len(piece)
            fits = budget is None or (
                len(body) + len(opening) + len(segment) + cost + len(section.closing) <= budget
            )
            if not fits:
                if count:  # what follows continues the section; else it starts afresh
                    body += opening + segment + section.closing
                    opening = section.reopening
                parts.append(body)
                body, segment, count = "", "", 0
                separator = ""
            segment += separator + piece
            count += 1
        body += opening + segment + section.closing
    parts.append(body)
    return [p for p in parts if p] or [""]


def _pieces(section: Section, budget: int | None) -> Iterator[tuple[bool, str]]:
    """The section's items, each cut between lines where a code block's item is longer
    than an empty part can hold; True with the second and later pieces of one item."""
    if budget is None:
        for item in section.items:
            yield False, item
        return
    frame = max(len(section.opening), len(section.reopening)) + len(section.closing)
    room = budget - frame - len(section.separator)
    if room < 80:
        raise ValueError(f"a Markdown part needs a limit above {80 - room:,} more characters")
    for item in section.items:
        if len(item) <= room or not section.lines:
            _check_fits(item, room)
            yield False, item
            continue
        for index, piece in enumerate(split_lines(item, room)):
            yield bool(index), piece


def _check_fits(text: str, budget: int | None) -> None:
    if budget is not None and len(text) > budget:
        raise ValueError(
            f"a Markdown part needs a limit above {len(text) - budget:,} more characters"
        )


# -- sections -----------------------------------------------------------------------------


def _summary(plan: Plan, causes: Mapping[str, Cause] | None) -> Section:
    text = ""
    if plan.changes:
        text += _counts_table(plan.changes) + "\n"
    # summary_text ends with the brake's verdict whenever the plan removes something.
    lines = summary_text(plan, causes).split("\n")
    text += "".join(f"**{inline(line)}**\n\n" for line in lines)
    table = coverage_table(plan)
    if table is not None:
        text += f"{COVERAGE_LEAD}\n\n{table}\n"
    return Section(text)


def _counts_table(changes: Sequence[Change]) -> str:
    counts = {kind: Counter(c.action for c in of) for kind, of in group_by_kind(changes).items()}
    total = Counter(change.action for change in changes)
    head = "| kind | " + " | ".join(a.value for a in Action) + " |\n"
    rule = "|:--|" + "--:|" * len(Action) + "\n"
    rows = "".join(
        f"| {inline(kind)} | " + " | ".join(f"{row[a]:,}" for a in Action) + " |\n"
        for kind, row in counts.items()
    )
    rows += "| **total** | " + " | ".join(f"**{total[a]:,}**" for a in Action) + " |\n"
    return head + rule + rows


def _lists(plan: Plan, causes: Mapping[str, Cause]) -> list[Section]:
    """The brake's reasons, the removals and disables, the errors, the warnings, the
    values asserted on every apply, then the notes (implicit technicians' access)."""
    sections = []
    brake = plan.brake
    if brake is not None and brake.holds:
        reasons = tuple(f"- {inline(reason)}\n" for reason in brake.held)
        sections.append(
            _list("Safety brake: holds", reasons, "`apply` refuses this plan without `--force`:")
        )
    removals = tuple(_address_item(c, causes.get(c.address)) for c in plan.changes if is_removal(c))
    for heading, items in (
        ("Removals and disables", removals),
        ("Errors", tuple(diagnostic_item(d) for d in plan.errors)),
        ("Warnings", tuple(diagnostic_item(d) for d in plan.warnings)),
    ):
        if items:
            sections.append(_list(heading, items))
    if plan.asserted:
        items = tuple(_address_item(c) for c in plan.asserted)
        sections.append(_list("Asserted on every apply", items, ASSERTED_LEAD))
    if plan.notes:
        items = tuple(diagnostic_item(d) for d in plan.notes)
        sections.append(_list("Notes", items))
    return sections


def _address_item(change: Change, cause: Cause | None = None) -> str:
    label = "" if cause is None else f", {cause.value}"
    return f"- {code_span(_short(change.address))} ({change.action.value}{label})\n"


def _list(
    heading: str, items: tuple[str, ...], lead: str = "", count: int | None = None
) -> Section:
    intro = f"{lead}\n\n" if lead else ""
    total = len(items) if count is None else count
    return Section(
        opening=f"### {heading} ({total:,})\n\n{intro}",
        reopening=f"### {heading} ({total:,}, continued)\n\n",
        closing="\n",
        items=items,
    )


def _short(text: str) -> str:
    return text if len(text) <= MAX_ADDRESS else text[: MAX_ADDRESS - 3] + "..."
