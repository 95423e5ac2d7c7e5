"""The ticket list item (`Tickets`, `Search`, `SubTickets`) and the ticket detail."""

from __future__ import annotations

from typing import Any

from reconciler.sandbox.helpdesk.registry import Ctx
from reconciler.sandbox.helpdesk.ticket_files import attachment_item, ticket_files
from reconciler.sandbox.helpdesk.tickets import ORIGINS, status_name, tag_id
from reconciler.sandbox.helpdesk.users import full_name, render_user
from reconciler.sandbox.store import Record, Store

# -- rendering -----------------------------------------------------------------------


def _user(store: Store, user_id: int | None) -> Record | None:
    return store.get("users", user_id) if user_id else None


def last_updater_id(ticket: Record) -> int:
    # Tickets written before anyone updated them (or seeded) were last touched by the
    # submitter.
    return int(ticket["last_updated_by_user_id"] or ticket["user_id"])


def list_items(store: Store, tickets: list[Record]) -> list[dict[str, Any]]:
    """Ticket list items; the parents are looked up once for `HasChildren`."""
    parents = {t["parent_id"] for t in store.rows("tickets") if t["parent_id"] is not None}
    return [list_item(store, t, t["id"] in parents) for t in tickets]


def list_item(store: Store, ticket: Record, has_children: bool) -> dict[str, Any]:
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
        "HasChildren": has_children,
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
    creator = _user(store, ticket["created_by_user_id"])
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
        "Attachments": [attachment_item(ctx, a) for a in ticket_files(ctx, ticket)],
        "Tags": tag_items(store, ticket),
    }


# -- one ticket ----------------------------------------------------------------------
