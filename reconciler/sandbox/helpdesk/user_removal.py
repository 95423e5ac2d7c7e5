"""`DeleteUser` and `MergeUsers`: the two irreversible user operations.

Decisions where the spec is silent:
- `DeleteUser` also deletes the user's own tickets with their comments and the user's
  comments elsewhere, unassigns the tickets assigned to the user, and drops the user's
  subscriptions, so nothing points at a missing user.
- `DeleteUser` of the caller, and `MergeUsers` with the caller as source, are 400: the
  sandbox must not lose its administrator.
- `MergeUsers` moves data (tickets, comments, asset assignments, subscriptions, category
  permissions), not profile fields, roles or custom field values.
"""

from __future__ import annotations

from typing import Any

from reconciler.sandbox.errors import HttpError
from reconciler.sandbox.helpdesk.registry import OK, Ctx, Permission, endpoint
from reconciler.sandbox.store import Record


def replace_id(ids: list[int], old: int, new: int | None) -> list[int]:
    """`ids` with `old` replaced by `new` (or dropped when None), without duplicates."""
    out: list[int] = []
    for item in ids:
        value = new if item == old else item
        if value is not None and value not in out:
            out.append(value)
    return out


def move_assignments(ctx: Ctx, old: int, new: int | None) -> None:
    """Asset assignments and ticket subscriptions of `old` go to `new` (or are dropped)."""
    for table, column in (("assets", "assigned_user_ids"), ("tickets", "subscriber_ids")):
        for rec in ctx.store.rows(table):
            if old in rec[column]:
                ctx.store.update(table, rec["id"], **{column: replace_id(rec[column], old, new)})


def move_tech_permissions(ctx: Ctx, source: Record, target: Record) -> None:
    """The source's category permissions go to the target, without duplicates.

    Rows only mean something for a technician (categories.py): a target that is an
    administrator or an all-category technician (no rows) already has every category, and
    rows would narrow it, so the source's rows are dropped then; so are the rows of a
    source that is no technician, which granted nothing."""
    rows = ctx.store.rows("tech_permissions")
    owned = {p["category_id"] for p in rows if p["user_id"] == target["id"]}
    covers_all = bool(target["is_admin"] or (target["is_tech"] and not owned))
    keep = bool(source["is_tech"]) and not covers_all
    for perm in rows:
        if perm["user_id"] != source["id"]:
            continue
        if keep and perm["category_id"] not in owned:
            ctx.store.update("tech_permissions", perm["id"], user_id=target["id"])
            owned.add(perm["category_id"])
        else:
            ctx.store.delete("tech_permissions", perm["id"])
    if keep and owned and not target["is_tech"]:
        # Category permissions make a technician, as AddCategoryTechPermission does.
        ctx.store.update("users", target["id"], is_tech=True)


def drop_tech_permissions(ctx: Ctx, user_id: int) -> None:
    for perm in ctx.store.rows("tech_permissions"):
        if perm["user_id"] == user_id:
            ctx.store.delete("tech_permissions", perm["id"])


def drop_tickets_of(ctx: Ctx, user_id: int) -> None:
    """The user's own tickets (with all their comments) and the user's comments go; tickets
    assigned to the user become unassigned. Nothing may point at a user that is gone."""
    gone: set[int] = set()
    for ticket in ctx.store.rows("tickets"):
        if ticket["user_id"] == user_id:
            gone.add(ticket["id"])
            ctx.store.delete("tickets", ticket["id"])
        elif ticket["assigned_to_user_id"] == user_id:
            ctx.store.update("tickets", ticket["id"], assigned_to_user_id=None)
    for comment in ctx.store.rows("comments"):
        if comment["user_id"] == user_id or comment["ticket_id"] in gone:
            ctx.store.delete("comments", comment["id"])
    if gone:
        for asset in ctx.store.rows("assets"):
            kept = [t for t in asset["ticket_ids"] if t not in gone]
            if kept != asset["ticket_ids"]:
                ctx.store.update("assets", asset["id"], ticket_ids=kept)


@endpoint("DeleteUser", methods=("POST",), permission=Permission.ADMIN, form_only=True)
async def delete_user(ctx: Ctx) -> Any:
    rec = ctx.record("users", ctx.id_param("userId"), "User")
    if rec["id"] == ctx.caller["id"]:
        # Deleting the caller could leave the sandbox without an administrator.
        raise HttpError(400, "You cannot delete your own account")
    with ctx.store.batch():
        drop_tech_permissions(ctx, rec["id"])
        move_assignments(ctx, rec["id"], None)
        drop_tickets_of(ctx, rec["id"])
        ctx.store.delete("users", rec["id"])
    return OK


@endpoint("MergeUsers", methods=("POST",), permission=Permission.ADMIN, form_only=True)
async def merge_users(ctx: Ctx) -> Any:
    from_id = ctx.params.integer("fromUserId", required=True)
    to_id = ctx.params.integer("toUserId", required=True)
    assert from_id is not None and to_id is not None
    if from_id == to_id:
        raise HttpError(400, "A user cannot be merged into itself")
    source = ctx.record("users", from_id, "User")
    target = ctx.record("users", to_id, "User")
    if from_id == ctx.caller["id"]:
        raise HttpError(400, "You cannot merge away your own account")
    with ctx.store.batch():
        for ticket in ctx.store.rows("tickets"):
            changes = {
                column: to_id
                for column in ("user_id", "assigned_to_user_id")
                if ticket[column] == from_id
            }
            if changes:
                ctx.store.update("tickets", ticket["id"], **changes)
        for comment in ctx.store.rows("comments"):
            if comment["user_id"] == from_id:
                ctx.store.update("comments", comment["id"], user_id=to_id)
        move_assignments(ctx, from_id, to_id)
        move_tech_permissions(ctx, source, target)
        ctx.store.delete("users", from_id)
    return OK
