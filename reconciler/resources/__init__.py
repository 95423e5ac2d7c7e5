"""What every kind's resource shares (DESIGN §1): the `Resource` shape and the context
they read and plan in (`base.py`), the scoped reads (`scope_reads.py`) and the marker of
`settings.ownership` (`ownership.py`). Each kind's own reader and planner are in its
package (`kinds/<kind>/`), and the register of kinds (`kinds/register.py`) lists them.
"""

from __future__ import annotations

from reconciler.resources.base import KindPlan, PlanContext, Resource, norm_key

__all__ = [
    "KindPlan",
    "PlanContext",
    "Resource",
    "norm_key",
]
