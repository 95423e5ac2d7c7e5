"""What text and Markdown both say about the plan as a whole, beside its changes: the
safety brake's verdict, in one line, whenever the plan removes, disables or deletes
something (issue 10, item 7: reviewers see it before merge) or the brake holds."""

from __future__ import annotations

from reconciler.changes import Action, Change, Plan
from reconciler.render.values import clean, plural


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
