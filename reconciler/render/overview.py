"""What text and Markdown both say about the plan as a whole, beside its changes: the
safety brake's verdict, in one line, whenever the plan removes, disables or deletes
something (issue 10, item 7: reviewers see it before merge) or the brake holds; and the
coverage of each kind with its unmanaged objects (issue 12, item 6), bounded: the JSON
plan lists every unmanaged key."""

from __future__ import annotations

from reconciler.plans import Action, Change, Plan, address
from reconciler.plans.text import clean, shorten
from reconciler.render.markdown_blocks import code_span, inline
from reconciler.render.values import plural, quote


def is_removal(change: Change) -> bool:
    """A prune, a delete or a disable: what the safety brake is there for."""
    return change.removal or change.action in (Action.delete, Action.disable)


def brake_line(plan: Plan) -> str | None:
    """`Safety brake: apply refuses ...` or `Safety brake: passes (...)`; None when nobody
    judged the plan (a plan read back from a file) or it neither holds nor removes."""
    brake = plan.brake
    if brake is None:
        return None
    if brake.holds:
        reasons = "; ".join(clean(reason) for reason in brake.held)
        return f"Safety brake: apply refuses this plan without --force: {reasons}."
    removals = [c for c in plan.changes if is_removal(c)]
    if not removals:
        return None
    deletes = sum(1 for c in removals if c.action is Action.delete)
    counted = f"{len(removals):,} " + ("removal" if len(removals) == 1 else "removals")
    counted += " or disable" if len(removals) == 1 else " or disables"
    if deletes:
        counted += f", {plural(deletes, 'deletion')} that cannot be undone"
    return f"Safety brake: passes ({counted}, within settings.safety): apply goes ahead."


# -- coverage and unmanaged objects (live/coverage.py) ---------------------------------

MAX_UNMANAGED_SHOWN = 10  # keys of a kind named in text; the JSON plan has them all
MAX_UNMANAGED_ITEMS = 50  # keys of a kind listed in Markdown, each an item of its own
COVERAGE_HEADING = (
    "Coverage (live objects the manifests manage; the others are unmanaged, not changes):"
)


def coverage_lines(plan: Plan) -> list[str]:
    """The text section: per kind read in full its figures and the first unmanaged keys;
    per kind not read in full, why. Empty when the plan has no coverage."""
    found = plan.coverage
    if found is None or not (found.kinds or found.not_read_in_full):
        return []
    width = max(len(clean(kind)) for kind in [*found.kinds, *found.not_read_in_full])
    lines = [COVERAGE_HEADING]
    for kind, figures in found.kinds.items():
        share = _percent(figures.percent)
        line = f"  {clean(kind):<{width}}  {figures.managed:,} of {figures.live:,} ({share})"
        if figures.unmanaged:
            shown = ", ".join(quote(key) for key in figures.unmanaged[:MAX_UNMANAGED_SHOWN])
            more = len(figures.unmanaged) - MAX_UNMANAGED_SHOWN
            line += f"; unmanaged: {shown}"
            if more > 0:
                line += f" and {more:,} more (the JSON plan lists every one)"
        lines.append(line)
    for kind, why in found.not_read_in_full.items():
        lines.append(f"  {clean(kind):<{width}}  not read in full: {clean(why)}")
    return lines


def coverage_table(plan: Plan) -> str | None:
    """The Markdown table of part 1: per kind the live and managed objects, the share
    and the count of unmanaged ones; the kinds not read in full say why. None when the
    plan has no coverage to show."""
    found = plan.coverage
    if found is None or not (found.kinds or found.not_read_in_full):
        return None
    head = "| kind | live | managed | coverage | unmanaged |\n|:--|--:|--:|--:|--:|\n"
    rows = "".join(
        f"| {inline(kind)} | {c.live:,} | {c.managed:,} | {_percent(c.percent)} "
        f"| {len(c.unmanaged):,} |\n"
        for kind, c in found.kinds.items()
    )
    rows += "".join(
        f"| {inline(kind)} | | | not read in full: {inline(why)} | |\n"
        for kind, why in found.not_read_in_full.items()
    )
    return head + rows


def unmanaged_items(plan: Plan) -> tuple[str, ...]:
    """Markdown list items: the first unmanaged objects of each kind by address, then how
    many more the JSON plan lists."""
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


def _percent(value: float) -> str:
    return f"{value:g}%"
