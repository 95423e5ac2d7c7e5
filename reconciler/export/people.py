"""Users and workspace employees as manifest entries (pure; see entries.py for what is
written in general).

- Users: every user the `Users` list gives, disabled ones and the account the export
  runs as included (it is live, and `plan` never disables it). The department comes as a
  name or only as an id, named through `Departments` (the quirk `user-department-id`).
- Employees: keyed by e-mail (the default `settings.employee_key`); the record as the
  service gives it, without its own fields (`id`, `createdAt`, `updatedAt`), key first,
  then in the service's order. Values are passed through as they are (a date stays the
  string the service sent: the field set is open, so nothing is guessed about it); null
  and empty values are left out unless `include_empty`.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from reconciler.export.entries import Converter, Entry, ordered, text
from reconciler.export.selection import EMPLOYEES
from reconciler.resources.employee_records import SERVER_FIELDS, LiveEmployees
from reconciler.resources.user_records import LiveUser, LiveUsers

# User fields written as texts (the others: references, flags, custom fields).
USER_TEXTS = ("first_name", "last_name", "phone", "location", "notes")


def users(conv: Converter) -> list[Entry]:
    values = conv.values("users")
    entries = []
    for user in conv.listed("users", LiveUsers({}), lambda u: u.username):
        entry: Entry = {"username": user.username}
        if user.email.strip():
            entry["email"] = user.email.strip()
        for name in USER_TEXTS:
            conv.put(entry, name, text(getattr(user, name)))
        conv.put(entry, "company", _name(user.company))
        conv.put(entry, "department", _name(user.department))
        entry["is_admin"] = user.is_admin
        entry["disabled"] = user.disabled
        if user.custom_values is not None:
            found = values.values(user.custom_values, f"users/{user.username}")
            conv.put(entry, "custom_fields", found or None)
        entries.append(ordered("users", entry))
    return entries


def _name(value: str | None) -> str | None:
    return value.strip() or None if value else None


def employees(conv: Converter) -> list[Entry]:
    key_field = conv.selection.employee_key
    records = [dict(r) for r in conv.live(EMPLOYEES, LiveEmployees("", {})).records]
    unkeyed = sum(1 for r in records if conv.selection.key(EMPLOYEES, r.get(key_field)) is None)
    if unkeyed:
        conv.notes.append(
            f"{EMPLOYEES}: {unkeyed} employee(s) without {key_field!r} cannot be named by a "
            "manifest entry: left out"
        )
    chosen = conv.keyed(EMPLOYEES, records, lambda r: _key(r.get(key_field)), drop_shared=True)
    return [_employee(record, key_field, conv.include_empty) for record in chosen]


def _key(value: Any) -> str | None:
    return value.strip() if isinstance(value, str) else None


def _employee(record: dict[str, Any], key_field: str, include_empty: bool) -> Entry:
    entry: Entry = {key_field: str(record[key_field]).strip()}
    for name, value in record.items():
        if name in SERVER_FIELDS or name == key_field:
            continue
        if value in (None, "") and not include_empty:
            continue
        entry[name] = value
    return entry


def live_user_names(users: Iterable[LiveUser]) -> dict[int, str]:
    """User id -> username, for assignments that carry only an id."""
    return {u.id: u.username for u in users if u.username}
