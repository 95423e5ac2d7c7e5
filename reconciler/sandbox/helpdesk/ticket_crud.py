"""The endpoints of one ticket: `ticket` (GET and POST), `UpdateTicket` and `Close`, also
spelled `talep`, `UpdateTalep`. The shared checks and renderers are in `tickets.py`, whose
docstring describes the permissions and the decisions taken where the spec is silent."""

from __future__ import annotations

import json
from typing import Any

from reconciler.sandbox import records
from reconciler.sandbox.errors import HttpError
from reconciler.sandbox.helpdesk.categories import is_category_tech
from reconciler.sandbox.helpdesk.custom_fields import ticket_fields_for_category, validate_value
from reconciler.sandbox.helpdesk.registry import OK, Ctx, endpoint
from reconciler.sandbox.helpdesk.ticket_files import (
    read_uploads,
    store_uploads,
)
from reconciler.sandbox.helpdesk.ticket_render import (
    detail,
)
from reconciler.sandbox.helpdesk.tickets import (
    CLOSED,
    ORIGINS,
    checked_assignee,
    checked_priority,
    checked_status,
    is_ticket_tech,
    parse_tags,
    parse_timestamp,
    referenced_user,
    required_text,
    save,
    usable_category,
    viewed_ticket,
)
from reconciler.sandbox.store import Record


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
    uploads = await read_uploads(ctx)
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
        created_by_user_id=ctx.caller["id"],
        last_updated_by_user_id=ctx.caller["id"],
    )
    ticket = ctx.store.insert("tickets", {**rec, "custom": custom})
    store_uploads(ctx, uploads, ticket["id"])
    if ctx.quirk("ticket-bare-int"):
        return ticket["id"]  # as CreateUser on some versions: the new id, bare
    return {"id": ticket["id"]}


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
