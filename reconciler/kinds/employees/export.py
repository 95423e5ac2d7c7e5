"""Workspace employees as manifest entries (pure; see export/entries.py for what is written
in general): keyed by e-mail (the default `settings.employee_key`); the record as the
service gives it, without its own fields (`id`, `createdAt`, `updatedAt`), key first, then
in the service's order. Values are passed through as they are (a date stays the string the
service sent: the field set is open, so nothing is guessed about it); null and empty
values are left out unless `include_empty`.
"""

from __future__ import annotations

from typing import Any

from reconciler.export.entries import Converter, Entry
from reconciler.export.selection import EMPLOYEES
from reconciler.kinds.employees.reader import SERVER_FIELDS, LiveEmployees


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
