"""Manifest entries outside their kind's `settings.scope` (DESIGN §9), offline.

An entry outside the scope could never be found by a plan's read (which lists only the
scope), so it would be planned as a create on every run: an error, naming the filter it
fails. What an entry's own fields say is enough: its key and e-mail for the patterns, its
`company` and `department` for those filters. `list_mode` is not checked here: whether a
user is a technician is not a field of its entry.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pydantic import BaseModel

from reconciler.kinds.categories.model import Category
from reconciler.kinds.employees.model import Employee
from reconciler.kinds.table import spec
from reconciler.manifest.characters import Problem
from reconciler.manifest.desired import DesiredState
from reconciler.manifest.models import Kind
from reconciler.manifest.references import keyed_entries
from reconciler.manifest.scopes import category_name, named_in, pattern_failure


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
            if failure is not None:
                path, why = failure
                found.append(
                    (kind, key, path, f"{spec(kind).noun} {key!r} is outside settings.scope."
                     f"{kind.value}: {why}; a plan reads only the scope")
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
        if not named_in(allowed, value):
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
