"""The shapes of the sandbox's stored records, one constructor per table.

Handlers, the seed loader and tests build records only through these functions, so a
record always carries every field (the renderers never meet a missing key).

Custom field values live in the record they belong to (users, companies, assets,
tickets) as `custom`: {str(field_id): stored string}.

Tables and their fields (besides `id`):
- users: username, password_hash, token, email, first_name, last_name, notes, location,
  phone, department_id, company_id, is_admin, is_tech, is_manager, disabled, send_email,
  greeting, signature, out_of_office, lang, last_seen
- companies: name, email_domain (';'-joined or None), notes
- departments: name;  sections: name
- categories: name, section_id, for_techs_only, from_address, kb_only, template (the
  ticket template {subject, body}, or None)
- tech_permissions: user_id, category_id
- custom_fields: name, type (1 text, 2 date, 3 dropdown, 4 checkbox, 5 multiline),
  usage_type (1 tickets, 2 assets, 3 users, 4 companies), mandatory, for_techs_only,
  options [{id, name}], category_ids (ticket fields; empty = every category), order,
  show_in_grid
- asset_types, manufacturers, suppliers: name
- assets: model_name, manufacturer_id, supplier_id, type_id, serial_number, location,
  comments, quantity, company_id, disabled, assigned_user_ids, ticket_ids
- rules: name, enabled, conditions (XML fragment), actions (XML fragment)
- priorities: priority_id, name;  statuses: status_id, name
- tickets: subject, body, priority, status_id, category_id, user_id, assigned_to_user_id,
  issue_date, start_date, due_date, resolved_date, last_updated, time_spent, tags, origin,
  updated_by_user, updated_by_performer, updated_for_tech_view, subscriber_ids,
  created_by_user_id, last_updated_by_user_id (None: the submitter), parent_id,
  linked_ids, secondary_assignee_ids, integration_urls ({IntegrationData field: url})
- comments: ticket_id, user_id, body, for_techs_only, is_system, date, recipients
- attachments: ticket_id, comment_id (None for a file of the ticket itself), user_id,
  file_name, content_type, size, file_hash, date, for_techs_only, data (base64)
- time_entries: ticket_id, user_id, status_id, seconds, date
- comment_templates: name, body, category_ids (empty = every category), group_id;
  comment_template_groups: name
- articles: category_id, subject, body, for_techs_only, tags, url_id, date_created,
  last_updated
- ws_api_keys: key, name;  ws_employees: fields (open mapping);  ws_desks, ws_assets,
  ws_bookings: fields
"""

from __future__ import annotations

import base64
import hashlib
import secrets
from typing import Any

Record = dict[str, Any]

FIELD_TYPES = {"text": 1, "date": 2, "dropdown": 3, "checkbox": 4, "multiline": 5}
USAGE_TYPES = {"tickets": 1, "assets": 2, "users": 3, "companies": 4}


def hash_password(password: str) -> str:
    return hashlib.sha256(f"reconciler-sandbox:{password}".encode()).hexdigest()


def new_token() -> str:
    return secrets.token_urlsafe(24)


def user(
    username: str,
    email: str,
    *,
    password: str | None = None,
    token: str | None = None,
    role: str = "user",
    first_name: str = "",
    last_name: str = "",
    notes: str = "",
    location: str = "",
    phone: str = "",
    department_id: int | None = None,
    company_id: int | None = None,
    is_manager: bool = False,
    disabled: bool = False,
    send_email: bool = True,
    greeting: str = "",
    signature: str = "",
) -> Record:
    """`role` is one of user, technician, admin (a category technician is a technician
    with tech_permissions rows)."""
    return {
        "username": username,
        "password_hash": hash_password(password or secrets.token_urlsafe(16)),
        "token": token or new_token(),
        "email": email,
        "first_name": first_name,
        "last_name": last_name,
        "notes": notes,
        "location": location,
        "phone": phone,
        "department_id": department_id,
        "company_id": company_id,
        "is_admin": role == "admin",
        "is_tech": role in ("admin", "technician"),
        "is_manager": is_manager,
        "disabled": disabled,
        "send_email": send_email,
        "greeting": greeting,
        "signature": signature,
        "out_of_office": False,
        "lang": "en-US",
        "last_seen": None,
        "custom": {},
    }


def company(name: str, *, email_domain: str | None = None, notes: str | None = None) -> Record:
    return {"name": name, "email_domain": email_domain or None, "notes": notes, "custom": {}}


def named(name: str) -> Record:
    """Departments, sections, asset types, manufacturers, suppliers."""
    return {"name": name}


def category(
    name: str,
    *,
    section_id: int | None = None,
    for_techs_only: bool = False,
    from_address: str | None = None,
    kb_only: bool = False,
    template: Record | None = None,
) -> Record:
    """`template` is the category's ticket template: {"subject": str, "body": str}."""
    return {
        "name": name,
        "section_id": section_id,
        "for_techs_only": for_techs_only,
        "from_address": from_address,
        "kb_only": kb_only,
        "template": template,
    }


def custom_field(
    name: str,
    *,
    type: int,
    usage_type: int,
    mandatory: bool = False,
    for_techs_only: bool = False,
    options: list[Record] | None = None,
    category_ids: list[int] | None = None,
    order: int = 0,
    show_in_grid: bool = False,
) -> Record:
    return {
        "name": name,
        "type": type,
        "usage_type": usage_type,
        "mandatory": mandatory,
        "for_techs_only": for_techs_only,
        "options": options or [],
        "category_ids": category_ids or [],
        "order": order,
        "show_in_grid": show_in_grid,
    }


def asset(
    *,
    model_name: str,
    manufacturer_id: int,
    supplier_id: int,
    type_id: int,
    serial_number: str | None = None,
    location: str | None = None,
    comments: str | None = None,
    quantity: int = 1,
    company_id: int | None = None,
    disabled: bool = False,
) -> Record:
    return {
        "model_name": model_name,
        "manufacturer_id": manufacturer_id,
        "supplier_id": supplier_id,
        "type_id": type_id,
        "serial_number": serial_number,
        "location": location,
        "comments": comments,
        "quantity": quantity,
        "company_id": company_id,
        "disabled": disabled,
        "assigned_user_ids": [],
        "ticket_ids": [],
        "custom": {},
    }


def rule(name: str, *, enabled: bool = True, conditions: str = "", actions: str = "") -> Record:
    return {"name": name, "enabled": enabled, "conditions": conditions, "actions": actions}


def ticket(
    *,
    subject: str,
    body: str,
    category_id: int,
    user_id: int,
    now: str,
    priority: int = 0,
    status_id: int = 1,
    assigned_to_user_id: int | None = None,
    tags: list[str] | None = None,
    origin: int = 3,
    created_by_user_id: int | None = None,
    last_updated_by_user_id: int | None = None,
) -> Record:
    """`created_by_user_id` differs from `user_id` for a ticket submitted on behalf of
    someone; None for either means the submitter."""
    return {
        "subject": subject,
        "body": body,
        "priority": priority,
        "status_id": status_id,
        "category_id": category_id,
        "user_id": user_id,
        "assigned_to_user_id": assigned_to_user_id,
        "issue_date": now,
        "start_date": now,
        "due_date": None,
        "resolved_date": None,
        "last_updated": now,
        "time_spent": 0,
        "tags": tags or [],
        "origin": origin,
        "updated_by_user": False,
        "updated_by_performer": False,
        "updated_for_tech_view": False,
        "subscriber_ids": [],
        "custom": {},
        "created_by_user_id": created_by_user_id,
        "last_updated_by_user_id": last_updated_by_user_id,
        "parent_id": None,
        "linked_ids": [],
        "secondary_assignee_ids": [],
        "integration_urls": {},
    }


def comment(
    *,
    ticket_id: int,
    user_id: int,
    body: str,
    date: str,
    for_techs_only: bool = False,
    is_system: bool = False,
    recipients: str = "",
) -> Record:
    return {
        "ticket_id": ticket_id,
        "user_id": user_id,
        "body": body,
        "for_techs_only": for_techs_only,
        "is_system": is_system,
        "date": date,
        "recipients": recipients,
    }


def attachment(
    *,
    ticket_id: int,
    user_id: int,
    file_name: str,
    content_type: str,
    data: bytes,
    date: str,
    comment_id: int | None = None,
    for_techs_only: bool = False,
) -> Record:
    """A file of a ticket (or of one of its comments), its bytes stored base64."""
    return {
        "ticket_id": ticket_id,
        "comment_id": comment_id,
        "user_id": user_id,
        "file_name": file_name,
        "content_type": content_type,
        "size": len(data),
        "file_hash": hashlib.sha256(data).hexdigest(),
        "date": date,
        "for_techs_only": for_techs_only,
        "data": base64.b64encode(data).decode("ascii"),
    }


def time_entry(*, ticket_id: int, user_id: int, status_id: int, seconds: int, date: str) -> Record:
    return {
        "ticket_id": ticket_id,
        "user_id": user_id,
        "status_id": status_id,
        "seconds": seconds,
        "date": date,
    }


def comment_template(
    name: str, body: str, *, category_ids: list[int] | None = None, group_id: int | None = None
) -> Record:
    """A canned response; `group_id` names a `comment_template_groups` record."""
    return {"name": name, "body": body, "category_ids": category_ids or [], "group_id": group_id}


def article(
    *,
    category_id: int,
    subject: str,
    body: str,
    now: str,
    for_techs_only: bool = False,
    tags: list[str] | None = None,
    url_id: str | None = None,
) -> Record:
    return {
        "category_id": category_id,
        "subject": subject,
        "body": body,
        "for_techs_only": for_techs_only,
        "tags": tags or [],
        "url_id": url_id,
        "date_created": now,
        "last_updated": now,
    }


STANDARD_PRIORITIES = [(-1, "Low"), (0, "Normal"), (1, "High"), (2, "Critical")]
STANDARD_STATUSES = [(1, "New"), (2, "In process"), (3, "Closed")]
