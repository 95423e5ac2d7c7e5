"""The planner's public entry point, kept where embedders have always imported it from:
`from reconciler.plan import plan`. The planner itself is `reconciler/planning/plan.py`,
the plan's data `reconciler/plans/`; nothing inside the package imports this module
(tests/architecture enforces it)."""

from __future__ import annotations

from reconciler.planning.plan import MANAGED_KINDS, plan, prune_kinds
from reconciler.plans import Plan
from reconciler.plans.addresses import Selector

__all__ = ["MANAGED_KINDS", "Plan", "Selector", "plan", "prune_kinds"]
