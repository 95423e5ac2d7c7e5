"""Comments: `comment` (add), `updatecomment` and `comments` (list).

Permissions (the model is described in `categories.py`), as the spec's table says:
- `comment`: an administrator or a technician of the ticket's category. The submitter of
  a ticket who is not such a technician may NOT comment on it through the API (the spec
  reserves it; end users reply by e-mail or in the web app). `fromUserId` (post as
  another user) needs an administrator.
- `updatecomment`: the comment's author, a technician of the ticket's category, or an
  administrator.
- `comments`: any viewer of the ticket; comments for technicians only are left out for
  callers who are not technicians of the ticket's category.

Decisions where the spec is silent:
- A new comment answers `OK` (the spec shows only the success status). It updates the
  ticket's `LastUpdated`, its last updater, and the updated-by flags by the author.
- `Recipients` is the comma-separated e-mail addresses of those notified: the users of
  `recipientIds` (each must exist: 400), else every subscriber but the author; a comment
  for technicians only notifies only subscribers who are technicians of the category.
- `updatecomment` without `forTechsOnly` makes the comment public (the spec's default
  false); it does not change the ticket's update time.
- Files (`uploadFile` parts) of a new comment are stored as attachments of its ticket,
  by the comment's author, for technicians only when the comment is (see `tickets.py`).
- Comments are listed oldest first (by date, then id).
"""

from __future__ import annotations

from typing import Any

from reconciler.sandbox import records
from reconciler.sandbox.errors import HttpError
from reconciler.sandbox.helpdesk.categories import is_category_tech
from reconciler.sandbox.helpdesk.registry import OK, Ctx, endpoint
from reconciler.sandbox.helpdesk.ticket_files import (
    read_uploads,
    store_uploads,
)
from reconciler.sandbox.helpdesk.tickets import (
    referenced_user,
    required_text,
    to_datetime,
    touched,
    viewed_ticket,
)
from reconciler.sandbox.store import Record, Store


def render_comment(store: Store, comment: Record, ticket: Record | None) -> dict[str, Any]:
    author = store.get("users", comment["user_id"])
    return {
        "CommentID": comment["id"],
        "IssueID": comment["ticket_id"],
        "UserID": comment["user_id"],
        "UserName": author["username"] if author else "",
        "Email": author["email"] if author else "",
        "FirstName": author["first_name"] if author else "",
        "LastName": author["last_name"] if author else "",
        "IsSystem": comment["is_system"],
        "CommentDate": comment["date"],
        "ForTechsOnly": comment["for_techs_only"],
        "Body": comment["body"],
        "TicketSubject": ticket["subject"] if ticket else None,
        "Recipients": comment["recipients"],
    }


def _author(ctx: Ctx) -> Record:
    user_id = ctx.params.integer("fromUserId")
    if user_id is None or user_id == ctx.caller["id"]:
        return ctx.caller
    ctx.require_admin()
    return referenced_user(ctx, user_id, "fromUserId")


def _recipients(ctx: Ctx, ticket: Record, author: Record, techs_only: bool) -> str:
    raw_ids = ctx.params.integers("recipientIds")
    if raw_ids:
        users = [referenced_user(ctx, uid, "recipientIds") for uid in dict.fromkeys(raw_ids)]
    else:
        found = [ctx.store.get("users", uid) for uid in ticket["subscriber_ids"]]
        users = [u for u in found if u is not None and u["id"] != author["id"]]
        if techs_only:
            users = [u for u in users if is_category_tech(ctx.store, u, ticket["category_id"])]
    return ", ".join(u["email"] for u in users)


@endpoint("comment", methods=("POST",))
async def add_comment(ctx: Ctx) -> Any:
    ticket = ctx.record("tickets", ctx.id_param("id", "ticketId", "talepId"), "Ticket")
    if not is_category_tech(ctx.store, ctx.caller, ticket["category_id"]):
        raise HttpError(
            403, "Access denied: only a technician of the ticket's category may comment"
        )
    body = required_text(ctx, "body")
    techs_only = bool(ctx.params.boolean("forTechsOnly", default=False))
    is_system = bool(ctx.params.boolean("isSystem", default=False))
    author = _author(ctx)
    uploads = await read_uploads(ctx)
    now = ctx.state.timestamp()
    comment = records.comment(
        ticket_id=ticket["id"],
        user_id=author["id"],
        body=body,
        date=now,
        for_techs_only=techs_only,
        is_system=is_system,
        recipients=_recipients(ctx, ticket, author, techs_only),
    )
    store_uploads(ctx, uploads, ticket["id"], ctx.store.insert("comments", comment))
    ctx.store.update("tickets", ticket["id"], **touched(ctx.store, ticket, author, now))
    return OK


@endpoint("updatecomment", methods=("POST",))
async def update_comment(ctx: Ctx) -> Any:
    comment = ctx.record("comments", ctx.id_param("id"), "Comment")
    ticket = ctx.store.get("tickets", comment["ticket_id"])
    may = comment["user_id"] == ctx.caller["id"] or (
        ctx.is_admin
        or (ticket is not None and is_category_tech(ctx.store, ctx.caller, ticket["category_id"]))
    )
    if not may:
        raise HttpError(403, "Access denied: you may not edit this comment")
    body = required_text(ctx, "body")
    techs_only = bool(ctx.params.boolean("forTechsOnly", default=False))
    ctx.store.update("comments", comment["id"], body=body, for_techs_only=techs_only)
    return OK


@endpoint("comments")
async def comments(ctx: Ctx) -> Any:
    ticket = viewed_ticket(ctx)
    tech = is_category_tech(ctx.store, ctx.caller, ticket["category_id"])
    rows = [
        c
        for c in ctx.store.rows("comments")
        if c["ticket_id"] == ticket["id"] and (tech or not c["for_techs_only"])
    ]
    rows.sort(key=lambda c: (to_datetime(c["date"]), c["id"]))
    return [render_comment(ctx.store, c, ticket) for c in rows]
