"""`Authorization` and `Priorities`."""

from __future__ import annotations

from typing import Any

from reconciler.sandbox.helpdesk.registry import Ctx, endpoint
from reconciler.sandbox.helpdesk.users import render_user

# The priorities every helpdesk has: a plain read that any caller may make.
PRIORITIES = [(-1, "Low"), (0, "Normal"), (1, "High"), (2, "Critical")]


@endpoint("Authorization", methods=("POST", "GET"))
async def authorization(ctx: Ctx) -> Any:
    return render_user(ctx.state, ctx.caller)


@endpoint("Priorities")
async def priorities(ctx: Ctx) -> Any:
    return [{"PriorityID": pid, "Name": name} for pid, name in PRIORITIES]
