"""What every report reads off a plan's JSON (`Plan.to_dict()`): the plans of one run
(one per environment, `Planned`), the counts per kind and action, the kinds in order."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

ACTIONS = ("create", "update", "delete", "enable", "disable")


@dataclass(frozen=True)
class Planned:
    """One environment's plan (its JSON); `environment` is None for a run without one."""

    plan: Mapping[str, Any]
    environment: str | None = None

    @property
    def label(self) -> str:
        return self.environment or "default"

    @property
    def changes(self) -> list[Mapping[str, Any]]:
        return list(self.plan.get("changes") or ())

    @property
    def errors(self) -> list[Mapping[str, Any]]:
        return list(self.plan.get("errors") or ())

    @property
    def warnings(self) -> list[Mapping[str, Any]]:
        return list(self.plan.get("warnings") or ())

    @property
    def brake_holds(self) -> bool:
        return bool((self.plan.get("brake") or {}).get("holds"))

    @property
    def brake_reasons(self) -> list[str]:
        return list((self.plan.get("brake") or {}).get("reasons") or ())

    @property
    def judged(self) -> bool:
        return self.plan.get("brake") is not None


def kinds(planned: Planned) -> list[str]:
    """The kinds the plan speaks of: those with coverage figures (every kind managed and
    read in full), those not read in full, then any other kind a change names."""
    found = dict.fromkeys(planned.plan.get("coverage") or {})
    found.update(dict.fromkeys(planned.plan.get("not_read_in_full") or {}))
    found.update(dict.fromkeys(str(change["kind"]) for change in planned.changes))
    return list(found)


def counts_by_kind(planned: Planned) -> dict[str, dict[str, int]]:
    """kind -> action -> number of changes, for every kind of `kinds` (zeros included)."""
    out = {kind: dict.fromkeys(ACTIONS, 0) for kind in kinds(planned)}
    for change in planned.changes:
        out[str(change["kind"])][str(change["action"])] += 1
    return out


def describe_counts(counts: Mapping[str, int]) -> str:
    """`1 create, 2 update` (the actions that occur), or `no changes`."""
    shown = [f"{n} {action}" for action, n in counts.items() if n]
    return ", ".join(shown) if shown else "no changes"


def plan_counts(planned: Planned) -> dict[str, int]:
    out = dict.fromkeys(ACTIONS, 0)
    for change in planned.changes:
        out[str(change["action"])] += 1
    return out


def status(planned: Planned) -> str:
    """`error`, `drift` (changes) or `clean`."""
    if planned.errors:
        return "error"
    return "drift" if planned.changes else "clean"


def describe_run(plans: Sequence[Planned]) -> str:
    states = [status(p) for p in plans]
    if "error" in states:
        return "errors"
    return "changes" if "drift" in states else "no changes"
