"""Users' live state, its reader, and the pure comparison with the manifests, shared by the
reader (which must know whose full record to fetch) and `diff` (which plans the
`UpdateUser` calls), so that the two cannot disagree. The decisions are the planner's
(`planner.py`)."""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine, Mapping
from dataclasses import dataclass, field, replace
from itertools import product
from operator import attrgetter
from typing import Any

from reconciler.kinds.custom_fields.reader import full_values_for, unignored
from reconciler.kinds.table import spec
from reconciler.kinds.users import User
from reconciler.manifest.desired import DesiredState
from reconciler.manifest.kinds import email_key
from reconciler.manifest.renames import formers_of, live_value
from reconciler.plans import FieldChange
from reconciler.resources.base import ByName, Reader, norm_key
from reconciler.resources.base import ignored as ignored_fields
from reconciler.resources.scope_reads import (
    in_scope,
    merged,
    read_outside,
    scoped_ids,
    users_filters,
)

KIND = "users"
# The kinds its entries name (the table of kinds' references).
COMPANIES, DEPARTMENTS = spec(KIND).targets("company", "department")
# Manifest fields that `UpdateUser` carries -> its parameter names, in display order.
RECORD_FIELDS = {
    "email": "email",
    "first_name": "firstName",
    "last_name": "lastName",
    "phone": "phone",
    "location": "location",
    "notes": "notes",
    "company": "company",
    "department": "department",
    "is_admin": "isAdmin",
    "disabled": "disabled",
}
# Fields of the full User object that the record carries but the list item lacks.
DETAIL_FIELDS = {
    "Greeting": "greeting",
    "Signature": "signature",
    "SendEmail": "enableEmailNotifications",
}
_NOT_CLEARABLE = ("email", "is_admin", "disabled")  # null there means "not managed"


@dataclass(frozen=True)
class LiveUser:
    id: int
    username: str
    email: str
    first_name: str = ""
    last_name: str = ""
    phone: str = ""
    location: str = ""
    notes: str = ""
    company: str | None = None
    department: str | None = None
    is_admin: bool = False
    disabled: bool = False
    department_id: int | None = None  # as listed, whether or not it could be named
    detail: Mapping[str, Any] | None = None  # the full User object; None: not read
    custom_values: tuple[Mapping[str, Any], ...] | None = None  # None: not read

    def digest_data(self) -> Any:
        record = [self.id, self.username, *(getattr(self, name) for name in RECORD_FIELDS)]
        if self.detail is not None:  # only the stable keys the plan uses, never LastSeen
            record.append([self.detail.get(key) for key in DETAIL_FIELDS])
        if self.custom_values is not None:
            record.append(sorted((int(v["FieldID"]), v.get("Value")) for v in self.custom_values))
        return record


@dataclass(frozen=True)
class LiveUsers(ByName[LiveUser]):
    kind = KIND
    name_field = "username"
    by_key: Mapping[str, LiveUser]  # normalised username -> user
    caller_id: int | None = None  # the account the reconciler runs as, when it was asked
    items: tuple[LiveUser, ...] = ()  # every user listed, in the listing's order
    # Users outside `settings.scope` that an entry of another kind names (a technician,
    # an assigned user), each read by username: they resolve, nothing else sees them.
    outside: Mapping[str, LiveUser] = field(default_factory=dict)

    def digest_data(self) -> Any:
        users = [u.digest_data() for _, u in sorted(self.by_key.items())]
        data: dict[str, Any] = {"caller": self.caller_id, "users": users}
        if self.outside:
            data["outside"] = sorted((k, u.id) for k, u in self.outside.items())
        return data

    def renamed(self, kind: str, old: str, new: str, written: str) -> LiveUsers:
        """A user renamed is found under its new username (`Keyed.renamed`); a company
        renamed is named anew in its members' records, so that they follow it without a
        change of their own."""
        if kind != COMPANIES:
            return super().renamed(kind, old, new, written)

        def follow(user: LiveUser) -> LiveUser:
            same = user.company is not None and norm_key(user.company) == old
            return replace(user, company=written) if same else user

        return replace(
            self,
            by_key={k: follow(u) for k, u in self.by_key.items()},
            items=tuple(follow(u) for u in self.items),
        )

    # Of every live user, the disabled ones included: what the API keeps unique
    # (planning/unique_values.py).
    unique_values = ByName.field_values

    def export_notes(self) -> list[str]:
        """What an export of these users leaves out: a department the listing names
        only by an id that no listed department has."""
        return [
            f"{KIND}/{user.username}: department is left out: its id {user.department_id} "
            "is not among the departments listed"
            for user in self.items
            if user.department is None and user.department_id
        ]


def _flag(value: Any) -> bool:
    if isinstance(value, str):
        return value.strip().lower() == "true"
    return bool(value)


def _text(value: Any) -> str:
    return "" if value is None else str(value)


def parse_user(raw: Mapping[str, Any], departments: Any = None) -> LiveUser:
    """A `Users` list item (or a full User object). The department comes as a name
    (`Departman`, `DepartmentName`) or only as `DepartmentID`, named by `departments`."""
    department = raw.get("Departman") or raw.get("DepartmentName")
    department_id = raw.get("DepartmentID", raw.get("DepartmentId"))
    if not department and department_id and departments is not None:
        department = departments.name_of(int(department_id))
    return LiveUser(
        id=int(raw.get("UserID") or raw.get("UserId") or raw["ID"]),
        username=_text(raw.get("Username")),
        email=_text(raw.get("Email")),
        first_name=_text(raw.get("FirstName")),
        last_name=_text(raw.get("LastName")),
        phone=_text(raw.get("Phone")),
        location=_text(raw.get("Location")),
        notes=_text(raw.get("Notes")),
        company=raw.get("CompanyName") or None,
        department=str(department) if department else None,
        is_admin=_flag(raw.get("IsAdmin")),
        disabled=_flag(raw.get("Disabled")),
        department_id=int(department_id) if department_id else None,
    )


def _same(name: str, wanted: Any, current: Any) -> bool:
    if name == "email":
        return email_key(str(wanted)) == email_key(_text(current))
    if name in ("company", "department"):
        return (norm_key(wanted) if wanted else None) == (norm_key(current) if current else None)
    # The flags are bools on both sides (StrictBool, `_flag`): their texts compare as they do.
    return _text(wanted).rstrip() == _text(current).rstrip()


def record_changes(
    user: User, live: LiveUser, ignored: frozenset[str], caller_id: int | None
) -> list[FieldChange]:
    """The changes to fields `UpdateUser` carries, from the list item alone (pure: `read`
    uses it to choose whose full record to fetch, `diff` to plan). Disabling the caller
    is left out: it is refused (see `diff`)."""
    given = user.model_fields_set - ignored
    changes = []
    for name in RECORD_FIELDS:
        wanted = getattr(user, name)
        if name not in given or (wanted is None and name in _NOT_CLEARABLE):
            continue
        if name == "disabled" and wanted and live.id == caller_id:
            continue
        current = getattr(live, name)
        if not _same(name, wanted, current):
            changes.append(FieldChange(name, current, wanted))
    return changes


def strays(live: LiveUsers, desired: DesiredState) -> list[LiveUser]:
    """Enabled live users the manifests do not name, the caller included (pure)."""
    named = {norm_key(u.username) for u in desired.manifest.users}
    return [u for key, u in sorted(live.by_key.items()) if key not in named and not u.disabled]


def update_record(current: LiveUser, changes: list[FieldChange]) -> dict[str, Any]:
    """The complete `UpdateUser` record: the live user with `changes` applied. The keys of
    the full User object (`current.detail`) that it lacks are left out, never guessed."""
    record: dict[str, Any] = {"userId": current.id, "username": current.username}
    for name, param in RECORD_FIELDS.items():
        record[param] = _param(getattr(current, name))
    for key, param in DETAIL_FIELDS.items():
        if current.detail is not None and key in current.detail:
            value = current.detail[key]
            record[param] = _flag(value) if key == "SendEmail" else _text(value)
    for change in changes:  # `username`: a rename (`previously:`)
        record[RECORD_FIELDS.get(change.path, change.path)] = _param(change.after)
    return record


def create_record(user: User, given: set[str], user_id: Any) -> dict[str, Any]:
    """The complete `UpdateUser` record of a user just created, from its entry: what the
    entry does not give is empty, as `CreateUser` left it."""
    record: dict[str, Any] = {"userId": user_id, "username": user.username}
    for name, param in RECORD_FIELDS.items():
        value = getattr(user, name) if name in given or name == "email" else None
        record[param] = bool(value) if name in ("is_admin", "disabled") else _text(value)
    return record


def _param(value: Any) -> Any:
    return value if isinstance(value, bool) else _text(value)


def _user_id(caller: Any) -> int | None:
    if not isinstance(caller, Mapping):
        return None
    ident = caller.get("UserID") or caller.get("UserId")
    return int(ident) if ident else None


async def _with_departments(
    reader: Reader, listing: Coroutine[Any, Any, list[dict[str, Any]]]
) -> tuple[Any, list[dict[str, Any]]]:
    """The departments' live state and the users' list, read at once. A listed user names
    its department by id, and its name is needed only to parse the list, so the list does
    not wait for the departments' read: one round trip less on every plan that reads
    users. (A scope by department waits for the ids it filters by: the same read, still
    one.) When the departments' read fails (or the run is stopped), the list is cancelled
    and its end awaited, so that no request outlives the read."""
    pages = asyncio.ensure_future(listing)
    try:
        departments = await reader.get(DEPARTMENTS)
    except BaseException:
        pages.cancel()
        await asyncio.gather(pages, return_exceptions=True)
        raise
    return departments, await pages


async def _list(reader: Reader) -> list[dict[str, Any]]:
    """The `Users` items of the scope: one read per (company, department) of it."""
    scope = reader.desired.settings.scope.of(KIND)
    if scope is None:
        listing: list[dict[str, Any]] = await reader.helpdesk.users()
        return listing
    companies = await scoped_ids(reader, KIND, "company")
    in_departments = await scoped_ids(reader, KIND, "department")
    reads = product(companies, in_departments)
    filters = (users_filters(scope, company, department) for company, department in reads)
    return await merged((reader.helpdesk.users(filters=f) for f in filters), "UserID")


async def read_users(reader: Reader) -> LiveUsers:
    """Every user of the `Users` list; the full User object of the users that get an
    `UpdateUser` (see `record_changes`) or are pruned; custom field values of those whose
    entries set some, and in a full read of every one selected (when user fields exist)."""
    helpdesk = reader.helpdesk
    desired = reader.desired
    departments, listed = await _with_departments(reader, _list(reader))
    wanted = in_scope(desired, KIND, attrgetter("username"), attrgetter("email"))
    items = [u for u in (parse_user(raw, departments) for raw in listed) if wanted(u)]
    users = {norm_key(user.username): user for user in items}
    # Pruning only when the manifests list users (see the planner).
    pruning = KIND in reader.prune and bool(desired.manifest.users)
    # Free: the client made this call before any other and keeps the answer. Pruning
    # and disabling leave the caller alone, and it is never an unmanaged object.
    caller_id = _user_id(await helpdesk.authenticate())
    ignored = ignored_fields(desired, KIND)
    detail_for: list[LiveUser] = []
    custom_for: list[LiveUser] = []
    formers = formers_of(desired, spec(KIND))
    for entry in desired.manifest.users:
        current = live_value(desired, spec(KIND), entry.username, users, formers)
        if current is None:
            continue
        renamed = norm_key(current.username) != norm_key(entry.username)
        if renamed or record_changes(entry, current, ignored, caller_id):
            detail_for.append(current)
        if unignored(entry.custom_fields, ignored) or desired.settings.ownership:
            custom_for.append(current)
    if pruning:
        pruned = [u for u in strays(LiveUsers(users), desired) if u.id != caller_id]
        detail_for += pruned
        if desired.settings.ownership:  # only those that carry the marker are pruned
            custom_for += pruned
    custom_for += await full_values_for(
        reader, KIND, users.values(), custom_for, attrgetter("username")
    )
    found = await asyncio.gather(
        *(helpdesk.user(u.id) for u in detail_for),
        *(helpdesk.user_custom_fields(u.id) for u in custom_for),
    )
    for user, detail in zip(detail_for, found[: len(detail_for)], strict=True):
        key = norm_key(user.username)
        users[key] = replace(users[key], detail=dict(detail))
    for user, values in zip(custom_for, found[len(detail_for) :], strict=True):
        key = norm_key(user.username)
        users[key] = replace(users[key], custom_values=tuple(values))
    by_id = {u.id: u for u in users.values()}
    # A user outside the scope is only named (by username, to its id): no department.
    outside = await read_outside(reader, KIND, users, parse_user)
    return LiveUsers(users, caller_id, tuple(by_id.get(u.id, u) for u in items), outside)
