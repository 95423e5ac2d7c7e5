"""Tickets: what every ticket module shares (the permission checks, parameter values,
tags, uploads, and the list item and detail renderers). The endpoints are in
`ticket_crud.py` (`ticket` GET and POST, `UpdateTicket`, `Close`, also spelled `talep`,
`UpdateTalep`, with the param `talepId`), `ticket_list.py` (`Tickets`, `Search`,
`Stats`, custom field values), `ticket_relations.py` (merging, links, sub-tickets,
subscribers, tags, time spent) and `attachments.py` (files); the list item and detail
renderers are in `ticket_render.py`, uploads and file items in `ticket_files.py`.

Permissions (the model is described in `categories.py`): the viewer of a ticket is its
submitter, a technician of its category or an administrator; a viewer may also update the
ticket, but only a technician of its category (or an administrator) may change its
subject, body, submitter or assignee. Anyone else gets 403 on a ticket.

Decisions where the spec is silent:
- Tag ids: tags have no table, so `TagID` is derived from the name (a stable CRC-32 of
  the case-folded name); a tag reuses the spelling it already has on other tickets.
- Referenced objects that do not exist (`categoryId`, `userId`, `assignedToUserId`, a
  status or priority id) are 400; the ticket named by `id` not existing is 404.
- `POST /ticket` defaults `priorityId` to 0 and `origin` to 3 (API); it refuses a category
  the caller cannot see (403) or a knowledge-base-only one (400). Mandatory custom fields
  are not enforced (the spec does not say the API checks them).
- Uploads: every `uploadFile` part of `POST /ticket` (and of `comment`, `AttachFile`) is
  stored as an attachment; a file over 10 MB (`MAX_FILE_SIZE`) is 400 and nothing is
  written. A file of the ticket itself has `CommentID` 0; `CommentDate` is the upload
  time; `FileHash` is the SHA-256 of the bytes (hex); `Url` is this API's `attachment`
  address. Files of comments for technicians only are left out for other callers.
- An assignee must be a technician of the ticket's category (400 otherwise).
- `UpdateTicket` with `statusId=3` sets `ResolvedDate` (to `closeDate` when given, else
  now) unless already closed; reopening clears it. Nothing to change answers `OK`.
- `LastUpdated` (with `LastUpdatedByUserID`) moves on every write that changes what the
  ticket shows: `UpdateTicket`, `Close`, comments, files, tags, custom field values,
  time spent, a merge into it. Subscriptions, links and sub-ticket relations do not
  change the ticket itself and leave it; `updatedFrom`/`updatedTo` filter on it.
- Every write records the time, the author, and the updated-by flags: by a technician of
  the category `UpdatedByPerformer`, by anyone else `UpdatedByUser` and
  `UpdatedForTechView`.
- `created_by_user_id` (for `OnBehalfUserName`) and `last_updated_by_user_id` (for
  `LastUpdatedByUserID`) of None (seeded tickets) mean the submitter.
- `HasChildren` is true when the ticket has sub-tickets (`AddSubTicket`).
- `Close` is served for GET (the spec) and POST.
"""

from __future__ import annotations

import zlib
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from reconciler.sandbox import records
from reconciler.sandbox.errors import HttpError
from reconciler.sandbox.helpdesk.categories import (
    can_see_category,
    is_category_tech,
    tech_category_ids,
)
from reconciler.sandbox.helpdesk.custom_fields import (
    parse_date,
)
from reconciler.sandbox.helpdesk.registry import Ctx
from reconciler.sandbox.store import Record, Store

NEW, IN_PROCESS, CLOSED = 1, 2, 3
ORIGINS = {
    0: "WebApp",
    1: "Email",
    2: "Widget",
    3: "API",
    4: "Scheduler",
    5: "MobileApp",
    6: "Phone",
    7: "LiveChat",
    8: "InPerson",
}
TICKET_ID = ("id", "ticketId", "talepId")  # endpoints whose spec param is `id`
TICKET_ID_FIRST = ("ticketId", "talepId", "id")  # ... and those whose param is `ticketId`
MAX_FILE_SIZE = 10 * 1024 * 1024  # the spec shows no upload limit: keep the store small

Predicate = Callable[[Record], bool]

# -- permissions ---------------------------------------------------------------------


def visible_to(store: Store, user: Record) -> Predicate:
    """Whether `user` is a viewer of a ticket (tech permissions looked up once)."""
    ids = tech_category_ids(store, user)
    if ids is None:
        return lambda t: True
    return lambda t: t["user_id"] == user["id"] or t["category_id"] in ids


def is_viewer(store: Store, user: Record, ticket: Record) -> bool:
    return visible_to(store, user)(ticket)


def viewed_ticket(ctx: Ctx, *names: str) -> Record:
    """The ticket named by the path or the params (404), if the caller is a viewer (403)."""
    return viewed(ctx, ctx.id_param(*(names or TICKET_ID)))


def viewed(ctx: Ctx, ticket_id: int) -> Record:
    """Ticket `ticket_id` (404), if the caller is a viewer (403)."""
    ticket = ctx.record("tickets", ticket_id, "Ticket")
    if not is_viewer(ctx.store, ctx.caller, ticket):
        raise HttpError(403, f"Access denied: you may not see ticket {ticket['id']}")
    return ticket


def is_ticket_tech(ctx: Ctx, ticket: Record) -> bool:
    return is_category_tech(ctx.store, ctx.caller, ticket["category_id"])


# -- values --------------------------------------------------------------------------


def format_timestamp(moment: datetime) -> str:
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"


def to_datetime(stamp: str) -> datetime:
    moment = datetime.fromisoformat(stamp.replace("Z", "+00:00"))
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


def parse_timestamp(raw: str, name: str) -> str:
    """A DateTime parameter in any common form, stored like the service's timestamps."""
    text = raw.strip()
    try:
        return format_timestamp(to_datetime(text))
    except ValueError:
        pass
    try:
        return format_timestamp(to_datetime(parse_date(text)))
    except HttpError:
        raise HttpError(400, f"Parameter '{name}' must be a date, got '{raw}'") from None


def status_name(store: Store, status_id: int) -> str:
    row = store.find("statuses", status_id=status_id)
    if row is not None:
        return str(row["name"])
    return dict(records.STANDARD_STATUSES).get(status_id, "")


def checked_status(ctx: Ctx, value: int) -> int:
    known = {s["status_id"] for s in ctx.store.rows("statuses")}
    if value not in known | {s for s, _ in records.STANDARD_STATUSES}:
        raise HttpError(400, f"Status {value} does not exist")
    return value


def checked_priority(ctx: Ctx, value: int) -> int:
    known = {p["priority_id"] for p in ctx.store.rows("priorities")}
    if value not in known | {p for p, _ in records.STANDARD_PRIORITIES}:
        raise HttpError(400, f"Priority {value} does not exist")
    return value


def required_text(ctx: Ctx, name: str) -> str:
    value = (ctx.params.text(name, required=True) or "").strip()
    if not value:
        raise HttpError(400, f"Parameter '{name}' must not be empty")
    return value


def required_int(ctx: Ctx, *names: str) -> int:
    value = ctx.params.integer(*names, required=True)
    assert value is not None  # `required` raised otherwise
    return value


def referenced_user(ctx: Ctx, user_id: int, name: str) -> Record:
    user = ctx.store.get("users", user_id)
    if user is None:
        raise HttpError(400, f"Parameter '{name}': user {user_id} does not exist")
    return user


def checked_assignee(ctx: Ctx, user_id: int, category_id: int, name: str) -> int:
    user = referenced_user(ctx, user_id, name)
    if not is_category_tech(ctx.store, user, category_id):
        raise HttpError(400, f"User {user_id} is not a technician of category {category_id}")
    return user_id


def usable_category(ctx: Ctx, category_id: int) -> Record:
    category = ctx.store.get("categories", category_id)
    if category is None:
        raise HttpError(400, f"Category {category_id} does not exist")
    if not can_see_category(ctx.store, ctx.caller, category):
        raise HttpError(403, f"Access denied: category {category_id} is for technicians only")
    if category["kb_only"]:
        raise HttpError(400, f"Category {category_id} is for knowledge base articles only")
    return category


def tag_id(name: str) -> int:
    return zlib.crc32(name.casefold().encode()) & 0x7FFFFFFF


def parse_tags(store: Store, raw: str) -> list[str]:
    """Comma-separated tags, deduplicated, in the spelling a tag already has elsewhere."""
    known: dict[str, str] = {}
    for ticket in store.rows("tickets"):
        for tag in ticket["tags"]:
            known.setdefault(tag.casefold(), tag)
    out: dict[str, str] = {}
    for piece in raw.split(","):
        name = piece.strip()
        if name:
            out.setdefault(name.casefold(), known.get(name.casefold(), name))
    return list(out.values())


def touched(store: Store, ticket: Record, author: Record, now: str) -> dict[str, Any]:
    """The changes every write makes: time, author and who-updated-last flags."""
    by_tech = is_category_tech(store, author, ticket["category_id"])
    return {
        "last_updated": now,
        "last_updated_by_user_id": author["id"],
        "updated_by_performer": by_tech,
        "updated_by_user": not by_tech,
        "updated_for_tech_view": not by_tech,
    }


def save(ctx: Ctx, ticket: Record, changes: dict[str, Any]) -> None:
    if changes:
        stamp = touched(ctx.store, ticket, ctx.caller, ctx.state.timestamp())
        ctx.store.update("tickets", ticket["id"], **changes, **stamp)
