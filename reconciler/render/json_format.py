"""The plan as JSON (DESIGN §4, exactly `Plan.to_dict()`). Reading it back, and the saved
plan file `apply --plan` checks, belong to `reconciler.plans.planfile`.

(Named `json_format`, not `json`, so that inside this package `json` always means the
standard library and `reconciler.render.json` never stands for two different modules.)
"""

from __future__ import annotations

import json
from typing import Any

from reconciler.plans import Plan


def format_json(plan: Plan, *, data: dict[str, Any] | None = None) -> str:
    """`Plan.to_dict()` with a 2-space indent, keys in their order, a trailing newline.
    Non-ASCII text stays readable; NaN and infinities are refused (they are not JSON).
    `data`: the plan's `to_dict()`, when the caller has made it already (for reports)."""
    as_dict = plan.to_dict() if data is None else data
    return json.dumps(as_dict, indent=2, ensure_ascii=False, allow_nan=False) + "\n"
