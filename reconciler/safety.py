"""octoDNS-style brakes (DESIGN §5): when the updates plus removals of a kind exceed
`max_change_percent` of its live objects, and the kind has at least `min_existing` of
them, `apply` refuses without `--force`. Pure: a function of the plan and the live state.

The brake guards what exists: an update counts when it changes or clears a value the
object has live. One that only fills values that are empty live is additive, like a
create, and does not count; otherwise re-running a bootstrap that was cut short (objects
created, their custom fields not yet set) would be refused as a mass change.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from reconciler.changes import Action, Change, Plan
from reconciler.live import LiveState
from reconciler.manifest.models import Safety

_EMPTY: tuple[object, ...] = (None, "", [], {}, ())


def touches_existing(change: Change) -> bool:
    """Whether a change alters or removes something the object has live."""
    if change.action is Action.create:
        return False
    if change.action is Action.update:
        return any(field.before not in _EMPTY for field in change.fields)
    return True  # delete, disable, enable


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


def brake_violations(plan: Plan, live: LiveState, safety: Safety) -> list[BrakeViolation]:
    changed = Counter(c.kind for c in plan.changes if touches_existing(c))
    found = []
    for kind, count in sorted(changed.items()):
        data = live.kinds.get(kind)
        existing = len(data) if data is not None else 0
        if existing < max(safety.min_existing, 1):
            continue
        percent = 100.0 * count / existing
        if percent > safety.max_change_percent:
            found.append(BrakeViolation(kind, count, existing, percent, safety.max_change_percent))
    return found
