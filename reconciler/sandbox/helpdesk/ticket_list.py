"""Ticket lists and custom field values: `Tickets`, `Search`, `Stats`,
`TicketCustomFields` (also `TalepCustomFields`), `SetCustomField` and `SetCustomFields`.
The custom field value items live here because `Tickets` shows the same items as grid
columns (`includeCustomFields`). The permission model is described in `tickets.py`: a
caller never sees a ticket they are not a viewer of in `Tickets`, `Search` or `Stats`.

Decisions where the spec is silent:
- `Tickets`: `count` above 300 is capped at 300; `count` below 1 or `offset` below 0 is
  400. An unknown `mode` or `updatedByType` is 400. `dueInDays=N` lists open tickets with
  a due date no later than N days from now (overdue ones included). `handledbyme` includes
  closed tickets. Date bounds are inclusive days (UTC). Newest first: by `IssueDate`,
  then by id.
- `includeCustomFields=true` adds `CustomFields` to every list item: the ticket custom
  field value items (as `TicketCustomFields`) of the show-in-grid fields (the first 30 by
  order) that apply to the ticket's category.
- `Search` matches `query` case-insensitively in subject, body and the comments the
  caller may read (or the ticket id); it answers every match, unpaged.
- `Stats` counts the tickets the caller may see: the first shape of the spec by default,
  the second (with `SubmittedByMe`) with `forCurrentUser=true`.
- `SetCustomField(s)`: a field that does not apply to the ticket's category is 400, an
  unknown field 404; one bad value among several changes nothing.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from reconciler.sandbox import records
from reconciler.sandbox.errors import HttpError
from reconciler.sandbox.helpdesk.custom_fields import (
    DROPDOWN,
    field_for,
    fields_of,
    store_value,
    ticket_fields_for_category,
    validate_value,
)
from reconciler.sandbox.helpdesk.registry import OK, Ctx, endpoint
from reconciler.sandbox.helpdesk.ticket_render import (
    list_items,
)
from reconciler.sandbox.helpdesk.tickets import (
    CLOSED,
    IN_PROCESS,
    NEW,
    TICKET_ID_FIRST,
    Predicate,
    is_ticket_tech,
    parse_timestamp,
    required_text,
    to_datetime,
    touched,
    viewed_ticket,
    visible_to,
)
from reconciler.sandbox.store import Record

DEFAULT_COUNT, MAX_COUNT, MAX_GRID_FIELDS = 10, 300, 30
TICKET_USAGE = records.USAGE_TYPES["tickets"]


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
    items = list_items(ctx.store, chosen)
    if with_fields:
        grid = grid_fields(ctx)
        for item, ticket in zip(items, chosen, strict=True):
            item["CustomFields"] = grid_values(ctx, grid, ticket)
    return items


def grid_values(ctx: Ctx, grid: list[Record], ticket: Record) -> list[dict[str, Any]]:
    category_id = ticket["category_id"]
    applies = [f for f in grid if not f["category_ids"] or category_id in f["category_ids"]]
    return [field_item(ctx, f, ticket["custom"].get(str(f["id"]))) for f in applies]


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
    ticket = viewed_ticket(ctx, *TICKET_ID_FIRST)
    field_id = ctx.params.integer("fieldId", required=True)
    assert field_id is not None
    field = category_field(ctx, ticket, field_id)
    set_values(ctx, ticket, [(field, ctx.params.text("value") or "")])
    return OK


@endpoint("SetCustomFields", methods=("POST",))
async def set_custom_fields(ctx: Ctx) -> Any:
    ticket = viewed_ticket(ctx, *TICKET_ID_FIRST)
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
    return list_items(ctx.store, found)


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
