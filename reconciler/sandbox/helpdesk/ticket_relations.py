"""What a ticket is connected to.

- Other tickets: `MergeTickets`, `LinkTickets`, `UnlinkTickets`, `LinkedTickets`,
  `AddSubTicket`, `RemoveSubTicket`, `SubTickets`, `ParentTicket`; also spelled
  `MergeTaleps`, `LinkTaleps`, `UnlinkTaleps`, `AddSubTalep`, `RemoveSubTalep`,
  `SubTaleps`, `ParentTalep` (param `returnFullTalep`).
- People: `AddSubscriber`, `RemoveSubscriber`, `Subscribers`, `AddSecondaryAssignee`.
- Tags, time and outside systems: `TagTicket` (`TagTalep`), `TimeSpentLog`,
  `AddTimeSpent`, `TicketIntegrationData` (`TalepIntegrationData`).

Permissions (the spec says "caller" for most): every endpoint needs a viewer of each
ticket it names (`tickets.py`), and besides:
- `MergeTickets` deletes a ticket: only a technician of both tickets' categories.
- `AddSubscriber`/`RemoveSubscriber` of anyone but the caller: a technician of the
  ticket's category.
- `AddSecondaryAssignee`: an administrator (the spec); `TimeSpentLog`, `AddTimeSpent`: a
  technician (the spec).

Decisions where the spec is silent:
- The second ticket of a pair (`id2`, `parentId`/`childId`) not existing is 404 like the
  first; a ticket paired with itself is 400.
- Writes that change nothing (linking linked tickets, subscribing a subscriber, removing
  a missing relation) answer `OK`. Relation and subscriber changes do not count as ticket
  updates (`LastUpdated` unchanged); `TagTicket` and `MergeTickets` do.
- `MergeTickets`: the comments, attachments and time entries of `id2` move to `id`;
  `id2`'s body becomes a comment on `id` (by its submitter, at its creation time), so no
  text is lost; tags, subscribers (with `id2`'s submitter), links and secondary
  assignees are united; time spent adds up; sub-tickets of `id2` and links and asset
  references to it go to `id`. `id` keeps its own fields and custom field values.
- Links are symmetric. A ticket has at most one parent: `AddSubTicket` moves a child that
  has another parent; a parent that is a descendant of the child is 400 (no cycles).
- `LinkedTickets` and `SubTickets` leave out the tickets the caller may not see;
  `SubTickets` answers full list items (the spec's "subset" is not shown), by id.
- `ParentTicket` answers the plain id even when the caller may not see the parent; with
  `returnFullTicket=true` it answers `null` when there is no parent and 403 for a parent
  the caller may not see.
- Subscribing does not make a user a viewer. `Subscribers` lists them in the order they
  were added.
- `AddSecondaryAssignee` (GET as the spec, and POST): the feature is always enabled; the
  user must be a technician of the category (400) and not the ticket's assignee (400).
- `TagTicket` adds one tag (a name with a comma is 400), in the spelling the tag already
  has on other tickets; a tag the ticket has already changes nothing.
- `AddTimeSpent`: `timeSpentInSeconds` must be at least 1; `statusId` omitted or 0 means
  the ticket's current status; the entry also adds to the ticket's `TimeSpentInSeconds`.
  `TimeSpentLog` lists the entries oldest first.
- `TicketIntegrationData`: nothing in the API sets these addresses; they come from the
  store (`integration_urls` of the ticket record), every field null otherwise.
"""

from __future__ import annotations

from typing import Any

from reconciler.sandbox import records
from reconciler.sandbox.errors import HttpError
from reconciler.sandbox.helpdesk.registry import OK, Ctx, Permission, endpoint
from reconciler.sandbox.helpdesk.ticket_render import (
    detail,
    list_items,
)
from reconciler.sandbox.helpdesk.tickets import (
    TICKET_ID_FIRST,
    checked_assignee,
    checked_status,
    is_ticket_tech,
    is_viewer,
    parse_tags,
    referenced_user,
    required_int,
    required_text,
    save,
    to_datetime,
    touched,
    viewed,
    viewed_ticket,
    visible_to,
)
from reconciler.sandbox.helpdesk.user_removal import replace_id
from reconciler.sandbox.helpdesk.users import render_user
from reconciler.sandbox.store import Record, Store

INTEGRATION_FIELDS = (
    "BitbucketIssueUrl",
    "JiraIssueUrl",
    "GitHubIssueUrl",
    "AsanaTaskUrl",
    "TrelloCardUrl",
    "VSOWorkItemUrl",
    "HarvestProjectUrl",
    "GitLabIssueUrl",
    "BasecampTodoUrl",
)


def united(*lists: list[Any]) -> list[Any]:
    return list(dict.fromkeys(item for items in lists for item in items))


def pair(ctx: Ctx, second: str) -> tuple[Record, Record]:
    """The tickets `id` and `second` (never from the path), both viewed by the caller."""
    first = viewed_ticket(ctx, "id")
    other = viewed(ctx, required_int(ctx, second))
    if first["id"] == other["id"]:
        raise HttpError(400, f"Parameters 'id' and '{second}' name the same ticket")
    return first, other


# -- merging -------------------------------------------------------------------------


def _move_children(store: Store, merged: Record, main: Record) -> None:
    """Comments, files and time entries of `merged` go to `main`."""
    for table in ("comments", "attachments", "time_entries"):
        for rec in store.rows(table):
            if rec["ticket_id"] == merged["id"]:
                store.update(table, rec["id"], ticket_id=main["id"])
    body = records.comment(
        ticket_id=main["id"],
        user_id=merged["user_id"],
        body=merged["body"],
        date=merged["issue_date"],
    )
    store.insert("comments", body)


def _merged_fields(main: Record, merged: Record) -> dict[str, Any]:
    known = {tag.casefold() for tag in main["tags"]}
    extra_subscriber = [merged["user_id"]] if merged["user_id"] != main["user_id"] else []
    pair_ids = {main["id"], merged["id"]}
    return {
        "tags": main["tags"] + [t for t in merged["tags"] if t.casefold() not in known],
        "subscriber_ids": united(
            main["subscriber_ids"], merged["subscriber_ids"], extra_subscriber
        ),
        "linked_ids": [
            i for i in united(main["linked_ids"], merged["linked_ids"]) if i not in pair_ids
        ],
        "secondary_assignee_ids": united(
            main["secondary_assignee_ids"], merged["secondary_assignee_ids"]
        ),
        "time_spent": main["time_spent"] + merged["time_spent"],
        "parent_id": None if main["parent_id"] == merged["id"] else main["parent_id"],
    }


def _repoint(store: Store, old: int, new: int) -> None:
    """Links, parent references and asset references to ticket `old` name `new`."""
    for ticket in store.rows("tickets"):
        if ticket["id"] in (old, new):
            continue
        changes: dict[str, Any] = {}
        if old in ticket["linked_ids"]:
            changes["linked_ids"] = replace_id(ticket["linked_ids"], old, new)
        if ticket["parent_id"] == old:
            changes["parent_id"] = new
        if changes:
            store.update("tickets", ticket["id"], **changes)
    for asset in store.rows("assets"):
        if old in asset["ticket_ids"]:
            store.update(
                "assets", asset["id"], ticket_ids=replace_id(asset["ticket_ids"], old, new)
            )


@endpoint("MergeTickets", "MergeTaleps", methods=("POST",))
async def merge_tickets(ctx: Ctx) -> Any:
    main, merged = pair(ctx, "id2")
    if not (is_ticket_tech(ctx, main) and is_ticket_tech(ctx, merged)):
        raise HttpError(403, "Access denied: only a technician of both tickets may merge them")
    store = ctx.store
    _move_children(store, merged, main)
    stamp = touched(store, main, ctx.caller, ctx.state.timestamp())
    store.update("tickets", main["id"], **_merged_fields(main, merged), **stamp)
    _repoint(store, merged["id"], main["id"])
    store.delete("tickets", merged["id"])
    return OK


# -- links ---------------------------------------------------------------------------


def _set_link(ctx: Ctx, linked: bool) -> None:
    first, second = pair(ctx, "id2")
    for ticket, other in ((first, second), (second, first)):
        has = other["id"] in ticket["linked_ids"]
        if linked and not has:
            ctx.store.update(
                "tickets", ticket["id"], linked_ids=[*ticket["linked_ids"], other["id"]]
            )
        elif has and not linked:
            kept = [i for i in ticket["linked_ids"] if i != other["id"]]
            ctx.store.update("tickets", ticket["id"], linked_ids=kept)


@endpoint("LinkTickets", "LinkTaleps", methods=("POST",))
async def link_tickets(ctx: Ctx) -> Any:
    _set_link(ctx, True)
    return OK


@endpoint("UnlinkTickets", "UnlinkTaleps", methods=("POST",))
async def unlink_tickets(ctx: Ctx) -> Any:
    _set_link(ctx, False)
    return OK


def linked_item(store: Store, ticket: Record) -> dict[str, Any]:
    user = store.get("users", ticket["user_id"])
    return {
        "TicketID": ticket["id"],
        "Subject": ticket["subject"],
        "StatusID": ticket["status_id"],
        "UpdatedByUser": ticket["updated_by_user"],
        "UpdatedByPerformer": ticket["updated_by_performer"],
        "CompanyID": user["company_id"] if user else None,
        "UserID": ticket["user_id"],
        "Username": user["username"] if user else "",
        "FirstName": user["first_name"] if user else "",
        "LastName": user["last_name"] if user else "",
        "IssueDate": ticket["issue_date"],
    }


@endpoint("LinkedTickets")
async def linked_tickets(ctx: Ctx) -> Any:
    ticket = viewed_ticket(ctx)
    found = [ctx.store.get("tickets", i) for i in ticket["linked_ids"]]
    seen = visible_to(ctx.store, ctx.caller)
    return [linked_item(ctx.store, t) for t in found if t is not None and seen(t)]


# -- sub-tickets ---------------------------------------------------------------------


def ancestors(store: Store, ticket: Record) -> set[int]:
    found: set[int] = set()
    current = ticket["parent_id"]
    while current is not None and current not in found:
        found.add(current)
        parent = store.get("tickets", current)
        current = parent["parent_id"] if parent else None
    return found


@endpoint("AddSubTicket", "AddSubTalep", methods=("POST",))
async def add_sub_ticket(ctx: Ctx) -> Any:
    parent = viewed(ctx, required_int(ctx, "parentId"))
    child = viewed(ctx, required_int(ctx, "childId"))
    if child["id"] == parent["id"] or child["id"] in ancestors(ctx.store, parent):
        raise HttpError(
            400, f"Ticket {child['id']} cannot be a sub-ticket of {parent['id']}: a cycle"
        )
    if child["parent_id"] != parent["id"]:
        ctx.store.update("tickets", child["id"], parent_id=parent["id"])
    return OK


@endpoint("RemoveSubTicket", "RemoveSubTalep", methods=("POST",))
async def remove_sub_ticket(ctx: Ctx) -> Any:
    child = viewed(ctx, required_int(ctx, "childId"))
    if child["parent_id"] is not None:
        ctx.store.update("tickets", child["id"], parent_id=None)
    return OK


@endpoint("SubTickets", "SubTaleps")
async def sub_tickets(ctx: Ctx) -> Any:
    ticket = viewed_ticket(ctx)
    seen = visible_to(ctx.store, ctx.caller)
    children = [t for t in ctx.store.rows("tickets") if t["parent_id"] == ticket["id"] and seen(t)]
    return list_items(ctx.store, children)


@endpoint("ParentTicket", "ParentTalep")
async def parent_ticket(ctx: Ctx) -> Any:
    ticket = viewed_ticket(ctx)
    full = ctx.params.boolean("returnFullTicket", "returnFullTalep", default=False)
    parent_id = ticket["parent_id"]
    parent = ctx.store.get("tickets", parent_id) if parent_id is not None else None
    if not full:
        return str(parent["id"] if parent else 0)  # plain text, not JSON (the spec)
    if parent is None:
        return None
    if not is_viewer(ctx.store, ctx.caller, parent):
        raise HttpError(403, f"Access denied: you may not see ticket {parent['id']}")
    return detail(ctx, parent)


# -- people --------------------------------------------------------------------------


def _subscriber(ctx: Ctx) -> tuple[Record, int]:
    ticket = viewed_ticket(ctx)
    user = referenced_user(ctx, required_int(ctx, "userId"), "userId")
    if user["id"] != ctx.caller["id"] and not is_ticket_tech(ctx, ticket):
        raise HttpError(
            403, "Access denied: only a technician may change another user's subscription"
        )
    return ticket, user["id"]


@endpoint("AddSubscriber", methods=("POST",))
async def add_subscriber(ctx: Ctx) -> Any:
    ticket, user_id = _subscriber(ctx)
    if user_id not in ticket["subscriber_ids"]:
        ids = [*ticket["subscriber_ids"], user_id]
        ctx.store.update("tickets", ticket["id"], subscriber_ids=ids)
    return OK


@endpoint("RemoveSubscriber", methods=("POST",))
async def remove_subscriber(ctx: Ctx) -> Any:
    ticket, user_id = _subscriber(ctx)
    if user_id in ticket["subscriber_ids"]:
        ids = [i for i in ticket["subscriber_ids"] if i != user_id]
        ctx.store.update("tickets", ticket["id"], subscriber_ids=ids)
    return OK


@endpoint("Subscribers")
async def subscribers(ctx: Ctx) -> Any:
    ticket = viewed_ticket(ctx)
    users = [ctx.store.get("users", uid) for uid in ticket["subscriber_ids"]]
    return [render_user(ctx.state, u) for u in users if u is not None]


@endpoint("AddSecondaryAssignee", methods=("GET", "POST"), permission=Permission.ADMIN)
async def add_secondary_assignee(ctx: Ctx) -> Any:
    ticket = viewed_ticket(ctx, *TICKET_ID_FIRST)
    user_id = checked_assignee(ctx, required_int(ctx, "userId"), ticket["category_id"], "userId")
    if user_id == ticket["assigned_to_user_id"]:
        raise HttpError(400, f"User {user_id} is the ticket's assignee already")
    if user_id not in ticket["secondary_assignee_ids"]:
        ids = [*ticket["secondary_assignee_ids"], user_id]
        ctx.store.update("tickets", ticket["id"], secondary_assignee_ids=ids)
    return OK


# -- tags, time, integrations --------------------------------------------------------


@endpoint("TagTicket", "TagTalep", methods=("POST",))
async def tag_ticket(ctx: Ctx) -> Any:
    ticket = viewed_ticket(ctx, *TICKET_ID_FIRST)
    name = required_text(ctx, "name")
    if "," in name:
        raise HttpError(400, "Parameter 'name' must be one tag, without commas")
    if name.casefold() not in {t.casefold() for t in ticket["tags"]}:
        save(ctx, ticket, {"tags": [*ticket["tags"], *parse_tags(ctx.store, name)]})
    return OK


@endpoint("TimeSpentLog", permission=Permission.TECH)
async def time_spent_log(ctx: Ctx) -> Any:
    ticket = viewed_ticket(ctx, *TICKET_ID_FIRST)
    entries = [e for e in ctx.store.rows("time_entries") if e["ticket_id"] == ticket["id"]]
    entries.sort(key=lambda e: (to_datetime(e["date"]), e["id"]))
    return [_time_item(ctx.store, e) for e in entries]


def _time_item(store: Store, entry: Record) -> dict[str, Any]:
    user = store.get("users", entry["user_id"])
    return {
        "UserID": entry["user_id"],
        "UserName": user["username"] if user else "",
        "StatusID": entry["status_id"],
        "TimeSpentInSeconds": entry["seconds"],
        "Date": entry["date"],
    }


@endpoint("AddTimeSpent", methods=("POST",), permission=Permission.TECH)
async def add_time_spent(ctx: Ctx) -> Any:
    ticket = viewed_ticket(ctx, *TICKET_ID_FIRST)
    seconds = required_int(ctx, "timeSpentInSeconds")
    if seconds < 1:
        raise HttpError(400, "Parameter 'timeSpentInSeconds' must be at least 1")
    # 0 is ASP.NET's "not given" for an int.
    status_id = ctx.params.integer("statusId") or ticket["status_id"]
    entry = records.time_entry(
        ticket_id=ticket["id"],
        user_id=ctx.caller["id"],
        status_id=checked_status(ctx, status_id),
        seconds=seconds,
        date=ctx.state.timestamp(),
    )
    ctx.store.insert("time_entries", entry)
    # The ticket's TimeSpentInSeconds changes, so it counts as an update (LastUpdated).
    save(ctx, ticket, {"time_spent": ticket["time_spent"] + seconds})
    return "ok"


@endpoint("TicketIntegrationData", "TalepIntegrationData")
async def integration_data(ctx: Ctx) -> Any:
    urls = viewed_ticket(ctx)["integration_urls"]
    return {name: urls.get(name) for name in INTEGRATION_FIELDS}
