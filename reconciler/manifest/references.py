"""The names the manifests write: each kind's keys, and the names by which an entry refers
to another kind's objects (a user's company, a technician). `validate` checks them against
each other offline; the planner checks them against the live names (`lookalikes.py`)."""

from __future__ import annotations

from collections.abc import Iterable

from reconciler.manifest.desired import DesiredState
from reconciler.manifest.kinds import key_field
from reconciler.manifest.models import Employee, Kind

Path = tuple[str | int, ...]


def entry_keys(desired: DesiredState, kind: Kind) -> list[str]:
    """The keys of a kind's entries as written, in the order they were written."""
    name = key_field(kind, desired.settings.employee_key)
    keys = []
    for entry in desired.entries(kind):
        if isinstance(entry, Employee):
            keys.append(str(entry.fields.get(name, "")))
        else:
            keys.append(str(getattr(entry, name)))
    return keys


def user_references(desired: DesiredState) -> Iterable[tuple[Kind, str, Path, str]]:
    """Every username the manifests refer to: (kind, entry key, path to it, username)."""
    for permission in desired.manifest.tech_permissions:
        for index, name in enumerate(permission.technicians):
            yield Kind.tech_permissions, permission.category, ("technicians", index), name
    for asset in desired.manifest.assets:
        for index, name in enumerate(asset.assigned_users or []):
            yield Kind.assets, asset.serial_number, ("assigned_users", index), name


def named_references(desired: DesiredState) -> Iterable[tuple[Kind, str, Path, Kind, str]]:
    """Names that refer to another kind's objects: (kind, entry key, path, kind referred
    to, name). A permission's key is the name of the category it is for."""
    for user in desired.manifest.users:
        for field_name, target in (("company", Kind.companies), ("department", Kind.departments)):
            value = getattr(user, field_name)
            if value:
                yield Kind.users, user.username, (field_name,), target, value
    for asset in desired.manifest.assets:
        if asset.company:
            yield Kind.assets, asset.serial_number, ("company",), Kind.companies, asset.company
    for permission in desired.manifest.tech_permissions:
        category = permission.category
        yield Kind.tech_permissions, category, ("category",), Kind.categories, category
    for kind, key, path, username in user_references(desired):
        yield kind, key, path, Kind.users, username
