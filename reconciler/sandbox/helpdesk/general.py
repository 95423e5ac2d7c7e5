"""`Authorization` and `Priorities`."""

from __future__ import annotations

from typing import Any

from reconciler.sandbox.helpdesk.registry import Ctx, endpoint
from reconciler.sandbox.helpdesk.users import render_user


@endpoint("Authorization", methods=("POST", "GET"))
async def authorization(ctx: Ctx) -> Any:
    return render_user(ctx.state, ctx.caller)


@endpoint("Priorities")
async def priorities(ctx: Ctx) -> Any:
    rows = sorted(ctx.store.rows("priorities"), key=lambda p: p["priority_id"])
    return [{"PriorityID": p["priority_id"], "Name": p["name"]} for p in rows]
