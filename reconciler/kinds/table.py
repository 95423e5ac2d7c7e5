"""The table of kinds: one row per managed kind, from which every list of kinds is derived
(the loader's models and key fields, the planner's order, the resources read, the service
each kind needs, the files export writes). See docs/architecture.md.

The kinds' names and their order are the members of `Kind` (manifest/models.py: the JSON
Schema's enum, which type checking needs spelled out); each kind's package gives its
member the rest of its row, imported here by name where the import check sees it, and the
table refuses at import to be out of step with `Kind`. It stands below everything that
reads it (the loader, the resources, the planner, export).
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from reconciler.kinds import (
    assets,
    automation_rules,
    categories,
    companies,
    departments,
    employees,
    tech_permissions,
    users,
)
from reconciler.manifest.kinds import KindSpec
from reconciler.manifest.models import Kind

# One row per kind, in `Kind`'s order.
KINDS: tuple[KindSpec, ...] = (
    companies.ROW,
    departments.ROW,
    categories.ROW,
    users.ROW,
    tech_permissions.ROW,
    assets.ROW,
    automation_rules.ROW,
    employees.ROW,
)

if [row.kind for row in KINDS] != list(Kind):  # pragma: no cover - a programming error
    raise RuntimeError("kinds/table.py: KINDS must have one row per Kind, in its order")

BY_NAME: dict[str, KindSpec] = {row.name: row for row in KINDS}
KIND_NAMES: tuple[str, ...] = tuple(BY_NAME)


def spec(kind: str) -> KindSpec:
    """The row of `kind`; KeyError for a name that is not a managed kind."""
    return BY_NAME[kind]


def references_to(kind: str) -> list[tuple[KindSpec, str]]:
    """The kinds whose entries name objects of `kind`, with the field that does."""
    return [(row, name) for row in KINDS for name, target in row.references if target == kind]


def service_of(kind: str) -> str:
    return BY_NAME[kind].service


def normalise_key(kind: str, value: Any, employee_key: str = "email") -> str | None:
    return BY_NAME[kind].normalise(value, employee_key)


# The loader's views of the table.
ENTRY_MODELS: dict[Kind, type[BaseModel]] = {row.kind: row.model for row in KINDS}
# The key field of each kind; employees' is `settings.employee_key`.
KEY_FIELDS: dict[Kind, str] = {row.kind: row.key_field for row in KINDS if row.key_field}


def key_field(kind: str, employee_key: str) -> str:
    return BY_NAME[kind].key_field_for(employee_key)


__all__ = [
    "BY_NAME",
    "ENTRY_MODELS",
    "KEY_FIELDS",
    "KINDS",
    "KIND_NAMES",
    "key_field",
    "normalise_key",
    "references_to",
    "service_of",
    "spec",
]
