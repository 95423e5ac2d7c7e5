"""octoDNS-style brakes (DESIGN §5): when the updates plus removals of a kind exceed
`max_change_percent` of its live objects, and the kind has at least `min_existing` of
them, `apply` refuses without `--force`. Pure: a function of the plan and the live state.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from reconciler.changes import Action, Plan
from reconciler.live import LiveState
from reconciler.manifest.models import Safety


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
    changed = Counter(c.kind for c in plan.changes if c.action is not Action.create)
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
