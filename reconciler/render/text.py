"""The plan as text for a terminal, like Terraform's: one block per change headed by its
symbol and address (`+` create, `~` update/enable/disable, `-` delete), the changed fields
aligned beneath, then the errors and warnings, then the summary line. With labels, each
change's cause follows its address (`~ users["dmitri"] (drift)`) and a line under the
summary counts them (`Causes: 2 drift, 3 pending.`).

Every line is built as segments of (text, style); the plain output joins the texts, the
coloured one renders each styled segment to ANSI through rich. Both paths therefore show
exactly the same characters, and the plain one can hold no escape code: every value has
had its control characters escaped before it gets here.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import cache

from rich.style import Style

from reconciler.applied.labels import Cause, counts_line
from reconciler.plans import (
    SYMBOLS,
    Action,
    Change,
    Diagnostic,
    FieldChange,
    Operation,
    Plan,
)
from reconciler.plans.text import clean, summary_counts
from reconciler.render.values import (
    KNOWN_AFTER_APPLY,
    clean_lines,
    comments,
    field_view,
    format_value,
    headline,
    label,
    label_width,
    plural,
    quote,
)

Segment = tuple[str, str | None]  # (text, rich style or None)
Line = list[Segment]

ACTION_STYLES = {
    Action.create: "green",
    Action.update: "yellow",
    Action.delete: "red",
    Action.enable: "yellow",
    Action.disable: "yellow",
}
DIFF_STYLES = {"+": "green", "-": "red", " ": None}
# Drift asks a person to look; pending is the pipeline's, and quieter.
CAUSE_STYLES = {Cause.drift: "bold magenta", Cause.pending: "cyan", Cause.both: "bold magenta"}
FIELD_INDENT = "    "
NESTED_INDENT = "      "
OPERATION_PARAMS_LIMIT = 10_000  # operations are shown for debugging: all their params

NO_CHANGES = "No changes. The live state matches the manifests."
ASSERTED_HEADING = (
    "Asserted on every apply (the API does not show these values, so they are not "
    "compared and are not changes; apply sends them each time):"
)


def format_text(
    plan: Plan,
    *,
    color: bool = False,
    show_operations: bool = False,
    diagnostics: bool = True,
    causes: Mapping[str, Cause] | None = None,
) -> str:
    """The whole plan as text ending in a newline; ANSI colours only when `color`. Without
    `diagnostics`, its errors, warnings and notes are left out (the CLI prints those on
    stderr, `format_diagnostics`). `causes`: each change's label by address (drift,
    pending), shown after its address and counted under the summary; None: no labels."""
    lines: list[Line] = []
    for change in plan.changes:
        cause = None if causes is None else causes.get(change.address)
        lines += change_lines(change, show_operations=show_operations, cause=cause)
        lines.append([])
    if plan.asserted:
        lines.append([(ASSERTED_HEADING, "bold")])
        for change in plan.asserted:
            lines += [
                [("  ", None), *line]
                for line in change_lines(change, show_operations=show_operations)
            ]
        lines.append([])
    if diagnostics:
        lines += _diagnostics(plan)
    coverage = coverage_lines(plan)
    if coverage:
        lines.append([(coverage[0], "bold")])
        lines += [[(line, None)] for line in coverage[1:]]
        lines.append([])
    lines += summary_lines(plan, causes)
    return "\n".join(_render(line, color=color) for line in lines) + "\n"


def format_diagnostics(plan: Plan, *, color: bool = False) -> str:
    """The plan's errors, warnings and notes as text (empty when it has none)."""
    return "".join(_render(line, color=color) + "\n" for line in _diagnostics(plan))


def _diagnostics(plan: Plan) -> list[Line]:
    lines: list[Line] = []
    for found, heading, style in (
        (plan.errors, "Error", "bold red"),
        (plan.warnings, "Warning", "bold yellow"),
        (plan.notes, "Note", "bold"),
    ):
        for diagnostic in found:
            lines += diagnostic_lines(diagnostic, heading, style)
            lines.append([])
    return lines


def summary_text(plan: Plan, causes: Mapping[str, Cause] | None = None) -> str:
    """`Plan: 1 to create, ...` or the no-change sentence, and what errors mean."""
    return "\n".join("".join(text for text, _ in line) for line in summary_lines(plan, causes))


def change_lines(
    change: Change, *, show_operations: bool = False, cause: Cause | None = None
) -> list[Line]:
    style = ACTION_STYLES[change.action]
    lines: list[Line] = [[(SYMBOLS[change.action], style), (" ", None), (headline(change), style)]]
    if cause is not None:
        lines[0] += [(" ", None), (f"({cause.value})", CAUSE_STYLES[cause])]
    lines += [[(f"{FIELD_INDENT}# {text}", style)] for text, style in comments(change)]
    width = label_width(change.fields)
    for field in change.fields:
        lines += _field_lines(field, change.action, width)
    if show_operations and change.operations:
        lines.append([(f"{FIELD_INDENT}operations:", "dim")])
        lines += [[(NESTED_INDENT + operation_text(op), None)] for op in change.operations]
    return lines


def _field_lines(field: FieldChange, action: Action, width: int) -> list[Line]:
    name = FIELD_INDENT + label(field.path, width)
    view = field_view(field, action)
    if view.heading:
        lines: list[Line] = [[(f"{name} {view.heading}", None)]]
        lines += [
            [(NESTED_INDENT, None), (sign, DIFF_STYLES[sign]), (f" {text}" if text else "", None)]
            for sign, text in view.rows
        ]
        if view.closing:
            lines.append([(NESTED_INDENT + view.closing, None)])
        return lines
    if view.before is not None and view.after is not None:
        return [[(name + " ", None), _value(view.before), (" -> ", None), _value(view.after)]]
    shown = view.before if view.after is None else view.after
    return [[(name + " ", None), _value(shown or "")]]


def _value(text: str) -> Segment:
    return (text, "dim" if text == KNOWN_AFTER_APPLY else None)


def operation_text(operation: Operation) -> str:
    """`helpdesk POST /api/UpdateCompany {id: 12, notes: "Key account"}  # set notes`."""
    text = f"{clean(operation.service)} {clean(operation.method)} {clean(operation.path)}"
    text += " " + format_value(operation.params, OPERATION_PARAMS_LIMIT)
    if operation.description:
        text += f"  # {clean(operation.description)}"
    return text


def diagnostic_lines(diagnostic: Diagnostic, heading: str, style: str) -> list[Line]:
    """`Error: address: message`, then where it comes from and how to fix it."""
    message = clean_lines(diagnostic.message)
    subject = f"{clean(diagnostic.address)}: " if diagnostic.address else ""
    lines: list[Line] = [[(f"{heading}:", style), (f" {subject}{message[0]}", None)]]
    lines += [[(f"  {text}", None)] for text in message[1:]]
    if diagnostic.location:
        lines.append([(f"  at {clean(diagnostic.location)}", None)])
    if diagnostic.remedy:
        remedy = clean_lines(diagnostic.remedy)
        lines.append([("  remedy:", "bold"), (f" {remedy[0]}", None)])
        lines += [[(f"    {text}", None)] for text in remedy[1:]]
    return lines


def summary_lines(plan: Plan, causes: Mapping[str, Cause] | None = None) -> list[Line]:
    lines: list[Line]
    if plan.has_changes:
        lines = [[(f"Plan: {summary_counts(plan.summary)}.", "bold")]]
        counted = counts_line({c.address: causes[c.address] for c in plan.changes
                               if causes is not None and c.address in causes})  # fmt: skip
        if counted is not None:
            lines.append([(counted, None)])
    elif plan.errors:
        # The errors are differences the plan could not turn into changes: saying that
        # live matches the manifests would be false.
        lines = [[("No changes planned.", "bold")]]
    else:
        lines = [[(NO_CHANGES, "bold")]]
    if plan.asserted:
        count = plural(len(plan.asserted), "value")
        lines.append([(f"{count} asserted on every apply, not counted as changes.", None)])
    if plan.errors:
        pronoun = "it is" if len(plan.errors) == 1 else "they are"
        text = f"{plural(len(plan.errors), 'error')}: nothing can be applied until {pronoun} fixed."
        lines.append([(text, "bold red")])
    verdict = brake_line(plan)
    if verdict is not None:
        # The brake's verdict, so that reviewers see it before merge (planning/safety.py).
        holds = plan.brake is not None and plan.brake.holds
        lines.append([(verdict, "bold yellow" if holds else None)])
    return lines


def _render(line: Line, *, color: bool) -> str:
    if not color:
        return "".join(text for text, _ in line)
    # Only standard colours, bold and dim: the same codes at any colour depth.
    return "".join(_ansi(style).render(text) if style else text for text, style in line)


@cache
def _ansi(style: str) -> Style:
    return Style.parse(style)


# -- the plan as a whole: the safety brake's verdict, whenever the plan removes, disables or
# deletes something (reviewers see it before merge) or the brake holds; the coverage of each
# kind with its unmanaged objects, bounded -------------------------------------------------


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

MAX_UNMANAGED_SHOWN = 10  # keys of a kind named; the JSON plan has them all
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
        share = f"{figures.percent:g}%"
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
