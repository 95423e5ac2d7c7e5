"""The plan as JSON (DESIGN §4, exactly `Plan.to_dict()`). Reading it back, and the saved
plan file `apply --plan` checks, belong to `reconciler.plans.planfile`.

(Named `json_format`, not `json`, so that inside this package `json` always means the
standard library and `reconciler.render.json` never stands for two different modules.)
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from reconciler.applied.labels import Cause
from reconciler.plans import Plan


def format_json(
    plan: Plan,
    *,
    data: dict[str, Any] | None = None,
    causes: Mapping[str, Cause] | None = None,
) -> str:
    """`Plan.to_dict()` with a 2-space indent, keys in their order, a trailing newline.
    Non-ASCII text stays readable; NaN and infinities are refused (they are not JSON).
    `data`: the plan's `to_dict()`, when the caller has made it already (for reports).
    `causes`: each change's label by address, as its last key `"cause"`."""
    as_dict = plan.to_dict() if data is None else data
    if causes is not None:
        as_dict = with_causes(as_dict, causes)
    return json.dumps(as_dict, indent=2, ensure_ascii=False, allow_nan=False) + "\n"


def with_causes(data: Mapping[str, Any], causes: Mapping[str, Cause]) -> dict[str, Any]:
    """A copy of the plan's `to_dict()` with `"cause"` on each labelled change (the given
    dict is left as it is: the caller may be sharing it with the reports)."""
    changes = [
        {**change, "cause": causes[change["address"]].value}
        if change.get("address") in causes
        else change
        for change in data.get("changes", ())
    ]
    return {**data, "changes": changes}
