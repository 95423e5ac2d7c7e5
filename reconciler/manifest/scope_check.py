"""Manifest entries outside their kind's `settings.scope` (DESIGN §9), offline.

An entry outside the scope could never be found by a plan's read (which lists only the
scope), so it would be planned as a create on every run: an error, naming the filter it
fails. What an entry's own fields say is enough: its key and e-mail for the patterns, its
`company` and `department` for those filters, and for the users' `list_mode` what the
manifests say of the user's role: `is_admin` given, or a technician permission naming it
(a user the manifests say nothing of can be anything live, and is not checked; nor is
`techs` against a user no permission names: it may be a technician of a category the
manifests do not list).

With `settings.ownership`, an entry that sets the marker field to another value would
fight the marker every run: an error at that value.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pydantic import BaseModel

from reconciler.kinds.categories import Category
from reconciler.kinds.employees import Employee
from reconciler.kinds.table import KINDS, spec
from reconciler.kinds.tech_permissions import TechPermission
from reconciler.kinds.users import User
from reconciler.manifest.characters import Problem
from reconciler.manifest.desired import DesiredState
from reconciler.manifest.kinds import norm_key
from reconciler.manifest.models import Kind
from reconciler.manifest.references import keyed_entries
from reconciler.manifest.scopes import (
    ListMode,
    UserScope,
    category_name,
    pattern_failure,
)


def scope_problems(desired: DesiredState) -> list[Problem]:
    """Each entry outside its kind's scope, located at the field that puts it outside."""
    scope = desired.settings.scope
    found: list[Problem] = []
    for kind in Kind:
        kind_scope = scope.of(kind.value)
        if kind_scope is None:
            continue
        for key, entry in keyed_entries(desired, kind):
            failure = _failure(kind, kind_scope, entry, key)
            if failure is None and isinstance(entry, User) and isinstance(kind_scope, UserScope):
                failure = _role_failure(kind_scope.list_mode, entry, technicians(desired))
            if failure is not None:
                path, why = failure
                found.append(
                    (kind, key, path, f"{spec(kind).noun} {key!r} is outside settings.scope."
                     f"{kind.value}: {why}; a plan reads only the scope")
                )  # fmt: skip
    return found + ownership_problems(desired)


def technicians(desired: DesiredState) -> frozenset[str]:
    """The usernames a technician permission names (normalised)."""
    permissions = (
        e for kind in Kind for e in desired.entries(kind) if isinstance(e, TechPermission)
    )
    return frozenset(norm_key(name) for entry in permissions for name in entry.technicians)


def _role_failure(
    mode: ListMode | None, user: User, techs: frozenset[str]
) -> tuple[tuple[str, ...], str] | None:
    """Which `list_mode` the manifests' own word on the user's role puts it outside of."""
    is_tech = norm_key(user.username) in techs
    if mode is ListMode.admins and user.is_admin is False:
        return (("is_admin",), "it sets is_admin: false (the scope's list_mode: admins)")
    if mode is ListMode.regular and user.is_admin:
        return (("is_admin",), "it sets is_admin: true (the scope's list_mode: regular)")
    if mode is ListMode.regular and is_tech:
        return ((), "a technician permission names it (the scope's list_mode: regular)")
    return None


def ownership_problems(desired: DesiredState) -> list[Problem]:
    """Entries that set the ownership marker's field to another value than the marker."""
    ownership = desired.settings.ownership
    if ownership is None:
        return []
    marker = norm_key(ownership.custom_field)
    found: list[Problem] = []
    for kind in (row.kind for row in KINDS if row.custom_field_usage):
        for key, entry in keyed_entries(desired, kind):
            for name, value in (getattr(entry, "custom_fields", None) or {}).items():
                if norm_key(name) != marker or str(value).strip() == ownership.value:
                    continue
                found.append(
                    (kind, key, ("custom_fields", name), f"{spec(kind).noun} {key!r} sets "
                     f"{name!r} to {value!r}, but settings.ownership marks the objects the "
                     f"manifests own with {ownership.value!r}: leave the field to the marker")
                )  # fmt: skip
    return found


def _failure(
    kind: Kind, scope: Any, entry: BaseModel, key: str
) -> tuple[tuple[str, ...], str] | None:
    """(the path of the field, which filter it fails and why), or None: in scope."""
    # `companies` and `departments`: filters by the kind an entry's field names.
    for field, target in spec(kind).references:
        name = target.name
        allowed: Sequence[str] | None = getattr(scope, name, None)
        if allowed is None:
            continue
        value = getattr(entry, field, None)
        if value is None or norm_key(value) not in {norm_key(n) for n in allowed}:
            given = f"its {field} is {value!r}" if value else f"it gives no {field}"
            return (
                (field,) if value else (),
                f"{given} (the scope's {name}: {', '.join(allowed)})",
            )
    values = _values(entry, key)
    why = pattern_failure(scope, *values)
    if why is None:
        return None
    shown = " or ".join(repr(v) for v in values if v)
    return ((), f"{shown} {why}")


def _values(entry: BaseModel, key: str) -> tuple[str, ...]:
    """What the patterns match: the key (a category's `section/name`), and the e-mail."""
    if isinstance(entry, Category):
        return (category_name(entry.name, entry.section),)
    if isinstance(entry, Employee):
        email = entry.fields.get("email")
        return (key, str(email)) if email and str(email) != key else (key,)
    email = getattr(entry, "email", None)
    return (key, str(email)) if email else (key,)
