"""The shapes of the sandbox's stored records, one constructor per table.

Handlers, the seed loader and tests build records only through these functions, so a
record always carries every field (the renderers never meet a missing key).

Custom field values live in the record they belong to (users, companies, assets) as
`custom`: {str(field_id): stored string}.

Every record has an `id`. The tables without a constructor here: `tech_permissions`
(user_id, category_id), `ws_api_keys` (key, name) and `ws_employees` (public_id, fields,
created, updated); `departments`, `sections`, `asset_types`, `manufacturers` and
`suppliers` are `named`. A company's `email_domain` is ';'-joined (or None); a rule's
`conditions` and `actions` are XML fragments.
"""

from __future__ import annotations

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
) -> Record:
    return {
        "name": name,
        "section_id": section_id,
        "for_techs_only": for_techs_only,
        "from_address": from_address,
    }


def custom_field(
    name: str,
    *,
    type: int,
    usage_type: int,
    mandatory: bool = False,
    for_techs_only: bool = False,
    options: list[Record] | None = None,
) -> Record:
    return {
        "name": name,
        "type": type,
        "usage_type": usage_type,
        "mandatory": mandatory,
        "for_techs_only": for_techs_only,
        "options": options or [],
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
        "custom": {},
    }


def rule(name: str, *, enabled: bool = True, conditions: str = "", actions: str = "") -> Record:
    return {"name": name, "enabled": enabled, "conditions": conditions, "actions": actions}
