"""Users as manifest entries (pure; see export/entries.py for what is written in general):
every user the `Users` list gives, disabled ones and the account the export runs as
included (it is live, and `plan` never disables it). The department comes as a name or
only as an id, named through `Departments` (the quirk `user-department-id`).
"""

from __future__ import annotations

from collections.abc import Iterable

from reconciler.export.entries import Converter, Entry, ordered, text
from reconciler.kinds.users.reader import LiveUser, LiveUsers

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


def live_user_names(users: Iterable[LiveUser]) -> dict[int, str]:
    """User id -> username, for assignments that carry only an id."""
    return {u.id: u.username for u in users if u.username}
