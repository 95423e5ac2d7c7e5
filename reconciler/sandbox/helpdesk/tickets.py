"""Tickets: `Tickets`, `ticket` (GET and POST), `UpdateTicket`, `Close`, `SetCustomField`,
`SetCustomFields`, `TicketCustomFields`, `Search` and `Stats`; the alternate spellings
`talep`, `UpdateTalep`, `TalepCustomFields` and the params `talepId` are served as well.

Permissions (the model is described in `categories.py`): the viewer of a ticket is its
submitter, a technician of its category or an administrator; a viewer may also update the
ticket, but only a technician of its category (or an administrator) may change its
subject, body, submitter or assignee. Anyone else gets 403 on a ticket, and never sees it
in `Tickets`, `Search` or `Stats`.

Decisions where the spec is silent:
- `Tickets`: `count` above 300 is capped at 300; `count` below 1 or `offset` below 0 is
  400. An unknown `mode` or `updatedByType` is 400. `dueInDays=N` lists open tickets with
  a due date no later than N days from now (overdue ones included). `handledbyme` includes
  closed tickets. Date bounds are inclusive days (UTC). Newest first: by `IssueDate`,
  then by id.
- `includeCustomFields=true` adds `CustomFields` to every list item: the ticket custom
  field value items (as `TicketCustomFields`) of the show-in-grid fields (the first 30 by
  order) that apply to the ticket's category.
- Tag ids: tags have no table, so `TagID` is derived from the name (a stable CRC-32 of
  the case-folded name); a tag reuses the spelling it already has on other tickets.
- Referenced objects that do not exist (`categoryId`, `userId`, `assignedToUserId`, a
  status or priority id) are 400; the ticket named by `id` not existing is 404.
- `POST /ticket` defaults `priorityId` to 0 and `origin` to 3 (API); it refuses a category
  the caller cannot see (403) or a knowledge-base-only one (400). Mandatory custom fields
  are not enforced (the spec does not say the API checks them). Uploaded files are ignored.
- An assignee must be a technician of the ticket's category (400 otherwise).
- `UpdateTicket` with `statusId=3` sets `ResolvedDate` (to `closeDate` when given, else
  now) unless already closed; reopening clears it. Nothing to change answers `OK`.
- Every write records the time, the author, and the updated-by flags: by a technician of
  the category `UpdatedByPerformer`, by anyone else `UpdatedByUser` and
  `UpdatedForTechView`.
- `HasChildren` is always false: sub-tickets are not modelled by the ticket record.
- The ticket record carries two keys beyond `records.ticket`: `created_by_user_id` (for
  `OnBehalfUserName`) and `last_updated_by_user_id` (for `LastUpdatedByUserID`); records
  without them (seeded) count as created and last updated by the submitter.
- `Close` is served for GET (the spec) and POST.
- `Search` matches `query` case-insensitively in subject, body and the comments the
  caller may read (or the ticket id); it answers every match, unpaged.
- `Stats` counts the tickets the caller may see: the first shape of the spec by default,
  the second (with `SubmittedByMe`) with `forCurrentUser=true`.
"""

from __future__ import annotations

import json
import zlib
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

from reconciler.sandbox import records
from reconciler.sandbox.errors import HttpError
from reconciler.sandbox.helpdesk.categories import (
    can_see_category,
    is_category_tech,
    tech_category_ids,
)
from reconciler.sandbox.helpdesk.custom_fields import (
    DROPDOWN,
    field_for,
    fields_of,
    parse_date,
    store_value,
    ticket_fields_for_category,
    validate_value,
)
from reconciler.sandbox.helpdesk.registry import OK, Ctx, endpoint
from reconciler.sandbox.helpdesk.users import full_name, render_user
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
DEFAULT_COUNT, MAX_COUNT, MAX_GRID_FIELDS = 10, 300, 30
TICKET_USAGE = records.USAGE_TYPES["tickets"]
TICKET_ID = ("id", "ticketId", "talepId")

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
    """The ticket named by the params (404), if the caller is a viewer (403)."""
    ticket = ctx.record("tickets", ctx.id_param(*(names or TICKET_ID)), "Ticket")
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


def date_bounds(ctx: Ctx, low: str, high: str) -> tuple[datetime | None, datetime | None]:
    """An inclusive range: a bare date as the upper bound means the end of that day."""
    start = ctx.params.text(low)
    end = ctx.params.text(high)
    lower = to_datetime(parse_timestamp(start, low)) if start else None
    upper = None
    if end:
        upper = to_datetime(parse_timestamp(end, high))
        if len(end.strip()) <= 10:
            upper += timedelta(days=1, microseconds=-1)
    return lower, upper


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


# -- rendering -----------------------------------------------------------------------


def _user(store: Store, user_id: int | None) -> Record | None:
    return store.get("users", user_id) if user_id else None


def last_updater_id(ticket: Record) -> int:
    # Tickets written before anyone updated them (or seeded) were last touched by the
    # submitter.
    return int(ticket.get("last_updated_by_user_id") or ticket["user_id"])


def list_item(store: Store, ticket: Record) -> dict[str, Any]:
    submitter = _user(store, ticket["user_id"])
    tech = _user(store, ticket["assigned_to_user_id"])
    updater = _user(store, last_updater_id(ticket))
    category = store.get("categories", ticket["category_id"])
    company = store.get("companies", submitter["company_id"]) if submitter else None
    return {
        "IssueID": ticket["id"],
        "Priority": ticket["priority"],
        "StatusID": ticket["status_id"],
        "IssueDate": ticket["issue_date"],
        "Subject": ticket["subject"],
        "Status": status_name(store, ticket["status_id"]),
        "UpdatedByUser": ticket["updated_by_user"],
        "UpdatedByPerformer": ticket["updated_by_performer"],
        "CategoryID": ticket["category_id"],
        "UserName": submitter["username"] if submitter else "",
        "Technician": full_name(tech) if tech else None,
        "FirstName": submitter["first_name"] if submitter else "",
        "LastName": submitter["last_name"] if submitter else "",
        "DueDate": ticket["due_date"],
        "TechFirstName": tech["first_name"] if tech else None,
        "TechLastName": tech["last_name"] if tech else None,
        "LastUpdated": ticket["last_updated"],
        "UpdatedForTechView": ticket["updated_for_tech_view"],
        "UserID": ticket["user_id"],
        "CompanyID": company["id"] if company else None,
        "CompanyName": company["name"] if company else None,
        "AssignedToUserID": ticket["assigned_to_user_id"],
        "ResolvedDate": ticket["resolved_date"],
        "SectionID": category["section_id"] if category else None,
        "Category": category["name"] if category else "",
        "Origin": ORIGINS.get(ticket["origin"], ""),
        "Email": submitter["email"] if submitter else "",
        "HasChildren": False,
        "LastUpdatedByUserID": last_updater_id(ticket),
        "LastUpdatedUsername": updater["username"] if updater else "",
        "StartDate": ticket["start_date"],
    }


def tag_items(store: Store, ticket: Record) -> list[dict[str, Any]]:
    counts: dict[str, int] = {}
    for other in store.rows("tickets"):
        for tag in other["tags"]:
            counts[tag.casefold()] = counts.get(tag.casefold(), 0) + 1
    return [
        {"TagID": tag_id(tag), "Name": tag, "TagCount": counts.get(tag.casefold(), 0)}
        for tag in ticket["tags"]
    ]


def detail(ctx: Ctx, ticket: Record) -> dict[str, Any]:
    store = ctx.store
    submitter = _user(store, ticket["user_id"])
    assignee = _user(store, ticket["assigned_to_user_id"])
    creator = _user(store, ticket.get("created_by_user_id"))
    category = store.get("categories", ticket["category_id"])
    on_behalf = creator if creator and creator["id"] != ticket["user_id"] else None
    return {
        "TicketID": ticket["id"],
        "Subject": ticket["subject"],
        "Body": ticket["body"],
        "Priority": ticket["priority"],
        "StatusID": ticket["status_id"],
        "Status": status_name(store, ticket["status_id"]),
        "CategoryID": ticket["category_id"],
        "CategoryName": category["name"] if category else "",
        "UserID": ticket["user_id"],
        "AssignedToUserID": ticket["assigned_to_user_id"],
        "SubmitterUserInfo": render_user(ctx.state, submitter) if submitter else None,
        "AssigneeUserInfo": render_user(ctx.state, assignee) if assignee else None,
        "OnBehalfUserName": on_behalf["username"] if on_behalf else None,
        "IssueDate": ticket["issue_date"],
        "StartDate": ticket["start_date"],
        "DueDate": ticket["due_date"],
        "ResolvedDate": ticket["resolved_date"],
        "TimeSpentInSeconds": ticket["time_spent"],
        "UpdatedByUser": ticket["updated_by_user"],
        "UpdatedByPerformer": ticket["updated_by_performer"],
        "UpdatedForTechView": ticket["updated_for_tech_view"],
        "IsCurrentCategoryForTechsOnly": bool(category and category["for_techs_only"]),
        "Attachments": [],
        "Tags": tag_items(store, ticket),
    }


def field_item(ctx: Ctx, field: Record, value: str | None) -> dict[str, Any]:
    """The ticket custom field value item."""
    option = None
    if field["type"] == DROPDOWN and value is not None:
        option = next((o for o in field["options"] if str(o["id"]) == value), None)
    item: dict[str, Any] = {
        "FieldName": field["name"],
        "FieldID": field["id"],
        "Type": field["type"],
        "UsageType": field["usage_type"],
        "Value": value,
        "ValueWithOption": option["name"] if option else value,
        "Mandatory": field["mandatory"],
    }
    if ctx.quirk("customfield-extra-keys"):
        item["OptionID"] = option["id"] if option else None
        item["AccessType"] = 0
        item["ForTechsOnly"] = field["for_techs_only"]
    return item


# -- Tickets -------------------------------------------------------------------------


def is_unanswered(ticket: Record) -> bool:
    """New, or last updated by the customer, and not closed."""
    waiting = ticket["status_id"] == NEW or bool(ticket["updated_by_user"])
    return waiting and ticket["status_id"] != CLOSED


def _mode_filter(ctx: Ctx) -> Predicate | None:
    mode = (ctx.params.text("mode") or "all").strip().lower()
    me = ctx.caller["id"]
    modes: dict[str, Predicate | None] = {
        "all": None,
        "unanswered": is_unanswered,
        "unclosed": lambda t: t["status_id"] != CLOSED,
        "handledbyme": lambda t: t["assigned_to_user_id"] == me,
    }
    if mode not in modes:
        raise HttpError(400, f"Parameter 'mode' must be one of {', '.join(modes)}, got '{mode}'")
    return modes[mode]


def _section_filter(ctx: Ctx) -> Predicate | None:
    section_id = ctx.params.integer("sectionId")
    if section_id is None:
        return None
    in_section = {c["id"] for c in ctx.store.rows("categories") if c["section_id"] == section_id}
    return lambda t: t["category_id"] in in_section


def _company_filter(ctx: Ctx) -> Predicate | None:
    company_id = ctx.params.integer("fromCompanyId")
    if company_id is None:
        return None
    members = {u["id"] for u in ctx.store.rows("users") if u["company_id"] == company_id}
    return lambda t: t["user_id"] in members


def _tag_filter(ctx: Ctx) -> Predicate | None:
    tag = (ctx.params.text("tagName") or "").strip().casefold()
    if not tag:
        return None
    return lambda t: any(x.casefold() == tag for x in t["tags"])


def _range_filter(ctx: Ctx, low: str, high: str, field: str) -> Predicate | None:
    lower, upper = date_bounds(ctx, low, high)
    if lower is None and upper is None:
        return None
    return lambda t: (
        (lower is None or to_datetime(t[field]) >= lower)
        and (upper is None or to_datetime(t[field]) <= upper)
    )


def _updated_by_filter(ctx: Ctx) -> Predicate | None:
    kind = (ctx.params.text("updatedByType") or "").strip().lower()
    if not kind:
        return None
    if kind == "tech":
        return lambda t: bool(t["updated_by_performer"])
    if kind == "cust":
        return lambda t: bool(t["updated_by_user"])
    raise HttpError(400, f"Parameter 'updatedByType' must be tech or cust, got '{kind}'")


def _due_filter(ctx: Ctx) -> Predicate | None:
    days = ctx.params.integer("dueInDays")
    if days is None:
        return None
    if days < 0:
        raise HttpError(400, "Parameter 'dueInDays' must not be negative")
    limit = ctx.state.now() + timedelta(days=days)
    return lambda t: (
        t["status_id"] != CLOSED
        and t["due_date"] is not None
        and to_datetime(t["due_date"]) <= limit
    )


def _id_filter(ctx: Ctx, field: str, *names: str) -> Predicate | None:
    wanted = set(ctx.params.integers(*names))
    return (lambda t: t[field] in wanted) if wanted else None


def _single_filter(ctx: Ctx, field: str, *names: str) -> Predicate | None:
    value = ctx.params.integer(*names)
    return None if value is None else (lambda t: t[field] == value)


def _subscribed_filter(ctx: Ctx) -> Predicate | None:
    if not ctx.params.boolean("subscribedOnly", default=False):
        return None
    me = ctx.caller["id"]
    return lambda t: me in t["subscriber_ids"]


def ticket_filters(ctx: Ctx) -> list[Predicate]:
    candidates = [
        visible_to(ctx.store, ctx.caller),
        _mode_filter(ctx),
        _id_filter(ctx, "category_id", "categoryId"),
        _section_filter(ctx),
        _id_filter(ctx, "status_id", "statusId"),
        _single_filter(ctx, "user_id", "fromUserId"),
        _company_filter(ctx),
        _single_filter(ctx, "assigned_to_user_id", "handledByUserID"),
        _tag_filter(ctx),
        _range_filter(ctx, "dateFrom", "dateTo", "issue_date"),
        _range_filter(ctx, "updatedFrom", "updatedTo", "last_updated"),
        _updated_by_filter(ctx),
        _due_filter(ctx),
        _subscribed_filter(ctx),
    ]
    return [c for c in candidates if c is not None]


def newest_first(tickets: list[Record]) -> list[Record]:
    return sorted(tickets, key=lambda t: (to_datetime(t["issue_date"]), t["id"]), reverse=True)


def matching(ctx: Ctx, predicates: list[Predicate]) -> list[Record]:
    found = [t for t in ctx.store.rows("tickets") if all(p(t) for p in predicates)]
    return newest_first(found)


def page(ctx: Ctx) -> tuple[int, int]:
    count = ctx.params.integer("count")
    offset = ctx.params.integer("offset") or 0
    if count is None:
        count = DEFAULT_COUNT
    if count < 1:
        raise HttpError(400, "Parameter 'count' must be at least 1")
    if offset < 0:
        raise HttpError(400, "Parameter 'offset' must not be negative")
    return min(count, MAX_COUNT), offset


def grid_fields(ctx: Ctx) -> list[Record]:
    fields = [f for f in fields_of(ctx, TICKET_USAGE) if f["show_in_grid"]]
    if not ctx.is_tech:
        fields = [f for f in fields if not f["for_techs_only"]]
    return sorted(fields, key=lambda f: (f["order"], f["id"]))[:MAX_GRID_FIELDS]


@endpoint("Tickets")
async def tickets(ctx: Ctx) -> Any:
    predicates = ticket_filters(ctx)
    count, offset = page(ctx)
    with_fields = ctx.params.boolean("includeCustomFields", default=False)
    chosen = matching(ctx, predicates)[offset : offset + count]
    items = [list_item(ctx.store, t) for t in chosen]
    if with_fields:
        grid = grid_fields(ctx)
        for item, ticket in zip(items, chosen, strict=True):
            item["CustomFields"] = grid_values(ctx, grid, ticket)
    return items


def grid_values(ctx: Ctx, grid: list[Record], ticket: Record) -> list[dict[str, Any]]:
    category_id = ticket["category_id"]
    applies = [f for f in grid if not f["category_ids"] or category_id in f["category_ids"]]
    return [field_item(ctx, f, ticket["custom"].get(str(f["id"]))) for f in applies]


# -- one ticket ----------------------------------------------------------------------


@endpoint("ticket", "talep")
async def get_ticket(ctx: Ctx) -> Any:
    return detail(ctx, viewed_ticket(ctx))


def custom_values(ctx: Ctx, category_id: int) -> dict[str, str]:
    """The `customFields` JSON object of `POST /ticket`, validated for the category."""
    raw = ctx.params.text("customFields")
    if raw is None or not raw.strip():
        return {}
    try:
        data = json.loads(raw)
    except ValueError:
        raise HttpError(400, "Parameter 'customFields' must be a JSON object") from None
    if not isinstance(data, dict):
        raise HttpError(400, "Parameter 'customFields' must be a JSON object")
    allowed = {f["id"]: f for f in ticket_fields_for_category(ctx, category_id)}
    out: dict[str, str] = {}
    for key, value in data.items():
        try:
            field_id = int(key)
        except ValueError:
            raise HttpError(400, f"'customFields' key '{key}' is not a field id") from None
        field = allowed.get(field_id)
        if field is None:
            raise HttpError(
                400, f"Custom field {field_id} is not a field of category {category_id}"
            )
        stored = validate_value(field, _json_text(value))
        if stored is not None:
            out[str(field_id)] = stored
    return out


def _json_text(value: Any) -> str:
    if isinstance(value, dict | list):
        raise HttpError(400, "Parameter 'customFields' values must be strings, numbers or booleans")
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _submitter(ctx: Ctx, category_id: int) -> Record:
    user_id = ctx.params.integer("userId")
    if not user_id or user_id == ctx.caller["id"]:  # 0 is ASP.NET's "not given"
        return ctx.caller
    if not is_category_tech(ctx.store, ctx.caller, category_id):
        raise HttpError(403, "Access denied: only a technician may submit for another user")
    return referenced_user(ctx, user_id, "userId")


def _assignee(ctx: Ctx, category_id: int) -> int | None:
    user_id = ctx.params.integer("assignedToUserId")
    if not user_id:
        return None
    if not is_category_tech(ctx.store, ctx.caller, category_id):
        raise HttpError(403, "Access denied: only a technician may assign a ticket")
    return checked_assignee(ctx, user_id, category_id, "assignedToUserId")


def _origin(ctx: Ctx) -> int:
    origin = ctx.params.integer("origin")
    if origin is None:
        return 3
    if origin not in ORIGINS:
        raise HttpError(400, f"Parameter 'origin' must be between 0 and 8, got {origin}")
    return origin


@endpoint("ticket", "talep", methods=("POST",))
async def create_ticket(ctx: Ctx) -> Any:
    category_id = ctx.params.integer("categoryId", required=True)
    assert category_id is not None
    usable_category(ctx, category_id)
    subject = required_text(ctx, "subject")
    body = required_text(ctx, "body")
    priority = checked_priority(ctx, ctx.params.integer("priorityId", "priority") or 0)
    submitter = _submitter(ctx, category_id)
    assignee = _assignee(ctx, category_id)
    origin = _origin(ctx)
    custom = custom_values(ctx, category_id)
    # Validated for the caller's sake; the sandbox sends no e-mail either way.
    ctx.params.boolean("suppressConfirmation")
    rec = records.ticket(
        subject=subject,
        body=body,
        category_id=category_id,
        user_id=submitter["id"],
        now=ctx.state.timestamp(),
        priority=priority,
        assigned_to_user_id=assignee,
        tags=parse_tags(ctx.store, ctx.params.text("tags", "Etiketler") or ""),
        origin=origin,
    )
    rec["custom"] = custom
    rec["created_by_user_id"] = ctx.caller["id"]
    rec["last_updated_by_user_id"] = ctx.caller["id"]
    return {"id": ctx.store.insert("tickets", rec)["id"]}


# -- UpdateTicket and Close ----------------------------------------------------------


def _tech_only_changes(ctx: Ctx, ticket: Record, changes: dict[str, Any]) -> None:
    """Subject, body, submitter and assignee: only a technician of the category may
    change them. Sending the current value is not a change, so that a client may send
    the complete record."""
    for name in ("subject", "body"):
        if ctx.params.has(name):
            changes[name] = required_text(ctx, name)
    user_id = ctx.params.integer("userId")
    if user_id is not None:
        changes["user_id"] = referenced_user(ctx, user_id, "userId")["id"]
    if ctx.params.has("assignedUserId"):
        assignee = ctx.params.integer("assignedUserId")
        category_id: int = (
            changes["category_id"] if "category_id" in changes else ticket["category_id"]
        )
        changes["assigned_to_user_id"] = (
            checked_assignee(ctx, assignee, category_id, "assignedUserId") if assignee else None
        )
    tech_only = ("subject", "body", "user_id", "assigned_to_user_id")
    edited = [k for k in tech_only if k in changes and changes[k] != ticket[k]]
    if edited and not is_ticket_tech(ctx, ticket):
        raise HttpError(
            403, "Access denied: only a technician may change subject, body, submitter or assignee"
        )


def _dates(ctx: Ctx, changes: dict[str, Any]) -> None:
    date = ctx.params.text("date")
    if date:
        changes["issue_date"] = parse_timestamp(date, "date")
    if ctx.params.has("dueDate"):
        due = (ctx.params.text("dueDate") or "").strip()
        changes["due_date"] = parse_timestamp(due, "dueDate") if due else None
    close = ctx.params.text("closeDate")
    if close:
        changes["resolved_date"] = parse_timestamp(close, "closeDate")


def status_changes(ctx: Ctx, ticket: Record, status_id: int) -> dict[str, Any]:
    """A status change; closing stamps the resolved date, reopening clears it."""
    changes: dict[str, Any] = {"status_id": checked_status(ctx, status_id)}
    if status_id == CLOSED and ticket["status_id"] != CLOSED:
        changes["resolved_date"] = ctx.state.timestamp()
    elif status_id != CLOSED:
        changes["resolved_date"] = None
    return changes


def _plain_changes(ctx: Ctx, ticket: Record, changes: dict[str, Any]) -> None:
    category_id = ctx.params.integer("categoryId")
    if category_id is not None:
        changes["category_id"] = usable_category(ctx, category_id)["id"]
    priority = ctx.params.integer("priority", "priorityId")
    if priority is not None:
        changes["priority"] = checked_priority(ctx, priority)
    spent = ctx.params.integer("timeSpentInSeconds")
    if spent is not None:
        if spent < 0:
            raise HttpError(400, "Parameter 'timeSpentInSeconds' must not be negative")
        changes["time_spent"] = spent
    status_id = ctx.params.integer("statusId")
    if status_id is not None:
        changes.update(status_changes(ctx, ticket, status_id))
    if ctx.params.has("tags", "Etiketler"):
        changes["tags"] = parse_tags(ctx.store, ctx.params.text("tags", "Etiketler") or "")


def save(ctx: Ctx, ticket: Record, changes: dict[str, Any]) -> None:
    if changes:
        stamp = touched(ctx.store, ticket, ctx.caller, ctx.state.timestamp())
        ctx.store.update("tickets", ticket["id"], **changes, **stamp)


@endpoint("UpdateTicket", "UpdateTalep", methods=("POST",))
async def update_ticket(ctx: Ctx) -> Any:
    ticket = viewed_ticket(ctx)
    changes: dict[str, Any] = {}
    _plain_changes(ctx, ticket, changes)
    _tech_only_changes(ctx, ticket, changes)
    # An explicit closeDate wins over the "now" that closing stamps.
    _dates(ctx, changes)
    save(ctx, ticket, changes)
    return OK


@endpoint("Close", methods=("GET", "POST"))
async def close(ctx: Ctx) -> Any:
    ticket = viewed_ticket(ctx)
    # Validated for the caller's sake; the sandbox sends no e-mail either way.
    ctx.params.boolean("suppressNotification")
    save(ctx, ticket, status_changes(ctx, ticket, CLOSED))
    return OK


# -- custom field values -------------------------------------------------------------


def category_field(ctx: Ctx, ticket: Record, field_id: int) -> Record:
    field = field_for(ctx, TICKET_USAGE, field_id)
    allowed = {f["id"] for f in ticket_fields_for_category(ctx, ticket["category_id"])}
    if field_id not in allowed:
        raise HttpError(
            400, f"Custom field {field_id} is not a field of category {ticket['category_id']}"
        )
    return field


def set_values(ctx: Ctx, ticket: Record, values: list[tuple[Record, str]]) -> None:
    """Validate every value first, so that one bad value changes nothing."""
    for field, raw in values:
        validate_value(field, raw)
    for field, raw in values:
        current = ctx.store.get("tickets", ticket["id"])
        assert current is not None
        store_value(ctx, "tickets", current, field, raw)
    stamp = touched(ctx.store, ticket, ctx.caller, ctx.state.timestamp())
    ctx.store.update("tickets", ticket["id"], **stamp)


@endpoint("SetCustomField", methods=("POST",))
async def set_custom_field(ctx: Ctx) -> Any:
    ticket = viewed_ticket(ctx, "ticketId", "talepId", "id")
    field_id = ctx.params.integer("fieldId", required=True)
    assert field_id is not None
    field = category_field(ctx, ticket, field_id)
    set_values(ctx, ticket, [(field, ctx.params.text("value") or "")])
    return OK


@endpoint("SetCustomFields", methods=("POST",))
async def set_custom_fields(ctx: Ctx) -> Any:
    ticket = viewed_ticket(ctx, "ticketId", "talepId", "id")
    values: list[tuple[Record, str]] = []
    for name, value in ctx.params.items():
        if name.startswith("cf") and name[2:].isdigit():
            values.append((category_field(ctx, ticket, int(name[2:])), str(value)))
    if not values:
        raise HttpError(400, "No 'cf<field_id>' parameters given")
    set_values(ctx, ticket, values)
    return OK


@endpoint("TicketCustomFields", "TalepCustomFields")
async def ticket_custom_fields(ctx: Ctx) -> Any:
    ticket = viewed_ticket(ctx)
    unset = ctx.params.boolean("returnUnset", default=False)
    items = []
    for field in ticket_fields_for_category(ctx, ticket["category_id"]):
        value = ticket["custom"].get(str(field["id"]))
        if value is not None or unset:
            items.append(field_item(ctx, field, value))
    return items


# -- Search and Stats ----------------------------------------------------------------


def _text_filter(ctx: Ctx, query: str) -> Predicate:
    needle = query.casefold()
    by_ticket: dict[int, list[Record]] = {}
    for comment in ctx.store.rows("comments"):
        by_ticket.setdefault(comment["ticket_id"], []).append(comment)
    return lambda t: _matches(ctx, t, needle, by_ticket.get(t["id"], []))


def _matches(ctx: Ctx, ticket: Record, needle: str, comments: list[Record]) -> bool:
    if needle == str(ticket["id"]) or needle in ticket["subject"].casefold():
        return True
    if needle in ticket["body"].casefold():
        return True
    tech = is_ticket_tech(ctx, ticket)
    return any(needle in c["body"].casefold() for c in comments if tech or not c["for_techs_only"])


@endpoint("Search", bucket="search")
async def search(ctx: Ctx) -> Any:
    query = required_text(ctx, "query")
    candidates = [
        visible_to(ctx.store, ctx.caller),
        _single_filter(ctx, "user_id", "fromUserId"),
        _id_filter(ctx, "category_id", "categoryId"),
        _id_filter(ctx, "status_id", "statusId"),
        _single_filter(ctx, "assigned_to_user_id", "assignedToUserId"),
        _range_filter(ctx, "dateFrom", "dateTo", "issue_date"),
        _text_filter(ctx, query),
    ]
    found = matching(ctx, [c for c in candidates if c is not None])
    return [list_item(ctx.store, t) for t in found]


@endpoint("Stats")
async def stats(ctx: Ctx) -> Any:
    mine = ctx.params.boolean("forCurrentUser", default=False)
    seen = visible_to(ctx.store, ctx.caller)
    rows = [t for t in ctx.store.rows("tickets") if seen(t)]
    me = ctx.caller["id"]

    def count(test: Predicate) -> int:
        return sum(1 for t in rows if test(t))

    new = count(lambda t: t["status_id"] == NEW)
    in_process = count(lambda t: t["status_id"] == IN_PROCESS)
    unanswered = count(is_unanswered)
    unassigned = count(lambda t: t["status_id"] != CLOSED and not t["assigned_to_user_id"])
    unclosed = count(lambda t: t["status_id"] != CLOSED)
    handled = count(lambda t: t["assigned_to_user_id"] == me)
    if mine:
        return {
            "NewTickets": new,
            "Unanswered": unanswered,
            "Unassigned": unassigned,
            "Unclosed": unclosed,
            "HandledByMe": handled,
            "SubmittedByMe": count(lambda t: t["user_id"] == me),
            "InProcess": in_process,
        }
    return {
        "TotalTickets": len(rows),
        "Closed": count(lambda t: t["status_id"] == CLOSED),
        "InProcess": in_process,
        "NewTickets": new,
        "Unanswered": unanswered,
        "Unassigned": unassigned,
        "Unclosed": unclosed,
        "HandledByMe": handled,
    }
