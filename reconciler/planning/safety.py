"""octoDNS-style brakes (DESIGN §5), held by `ApplySession` unless `force`; pure functions
of the plan, the live state and `settings.safety`.

- Percent: when the updates plus removals of a kind exceed `max_change_percent` of its
  live objects, and the kind has at least `min_existing` of them.
- Irreversible: deletions nothing can undo (workspace employees' `DELETE`) beyond
  `max_irreversible` in one run, or of more than half of the kind's live objects,
  whatever its size: `min_existing` exempts no kind from these.

The percent brake guards what exists: an update counts when it changes or clears a value
the object has live. One that only fills values that are empty live is additive, like a
create, and does not count; otherwise re-running a bootstrap that was cut short (objects
created, their custom fields not yet set) would be refused as a mass change.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from reconciler.live import LiveState
from reconciler.manifest.models import Safety
from reconciler.plans import Action, BrakeVerdict, Change, Plan

_EMPTY: tuple[object, ...] = (None, "", [], {}, ())


def touches_existing(change: Change) -> bool:
    """Whether a change alters or removes something the object has live."""
    if change.action is Action.create:
        return False
    if change.action is Action.update:
        return any(field.before not in _EMPTY for field in change.fields)
    return True  # delete, disable, enable


def irreversible(change: Change) -> bool:
    """Removals are otherwise the softest operation the API has (disable, unassign):
    only a delete cannot be undone."""
    return change.action is Action.delete


@dataclass(frozen=True)
class BrakeViolation:
    kind: str
    changed: int  # updates, enables, disables and removals
    existing: int
    percent: float
    limit: float

    def text(self) -> str:
        return (
            f"{self.kind}: {self.changed} of {self.existing} live objects would change or go "
            f"({self.percent:.0f}%, above the {self.limit:g}% limit)"
        )


@dataclass(frozen=True)
class IrreversibleViolation:
    kind: str
    deleted: int
    existing: int
    limit: int  # settings.safety.max_irreversible

    def text(self) -> str:
        why = (
            f"more than {self.limit} in one run (max_irreversible)"
            if self.deleted > self.limit
            else "more than half of them"
        )
        return (
            f"{self.kind}: {self.deleted} of {self.existing} live objects would be deleted, "
            f"which cannot be undone: {why}"
        )


Violation = BrakeViolation | IrreversibleViolation


def brake_violations(plan: Plan, live: LiveState, safety: Safety) -> list[Violation]:
    found: list[Violation] = []
    changed = Counter(c.kind for c in plan.changes if touches_existing(c))
    deleted = Counter(c.kind for c in plan.changes if irreversible(c))
    for kind in sorted(changed.keys() | deleted.keys()):
        data = live.kinds.get(kind)
        existing = len(data) if data is not None else 0
        if existing >= max(safety.min_existing, 1):
            percent = 100.0 * changed[kind] / existing
            if percent > safety.max_change_percent:
                limit = safety.max_change_percent
                found.append(BrakeViolation(kind, changed[kind], existing, percent, limit))
        count = deleted[kind]
        if count and (count > safety.max_irreversible or 2 * count > existing):
            found.append(IrreversibleViolation(kind, count, existing, safety.max_irreversible))
    return found


def brake_verdict(plan: Plan, live: LiveState, safety: Safety) -> BrakeVerdict:
    return BrakeVerdict(tuple(v.text() for v in brake_violations(plan, live, safety)))
