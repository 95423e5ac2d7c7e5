"""What the loader knows about each kind: its entry model, its key field, and how keys
compare (DESIGN §1)."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from reconciler.manifest.models import (
    Asset,
    AutomationRule,
    Category,
    Company,
    Department,
    Employee,
    Kind,
    TechPermission,
    User,
)

ENTRY_MODELS: dict[Kind, type[BaseModel]] = {
    Kind.companies: Company,
    Kind.departments: Department,
    Kind.categories: Category,
    Kind.users: User,
    Kind.tech_permissions: TechPermission,
    Kind.assets: Asset,
    Kind.automation_rules: AutomationRule,
    Kind.employees: Employee,
}

# The key field of each kind; employees' is `settings.employee_key`.
KEY_FIELDS: dict[Kind, str] = {
    Kind.companies: "name",
    Kind.departments: "name",
    Kind.categories: "name",
    Kind.users: "username",
    Kind.tech_permissions: "category",
    Kind.assets: "serial_number",
    Kind.automation_rules: "id",
}

# Keys compared without regard to case (and to runs of white space), like the planner's
# `norm_key`. Serial numbers too: `sn-0001` in a manifest and `SN-0001` live are one asset,
# and telling them apart would create a duplicate (and, under prune, disable the original).
_NAMED = frozenset(
    {
        Kind.companies,
        Kind.departments,
        Kind.categories,
        Kind.users,
        Kind.tech_permissions,
        Kind.assets,
    }
)


def key_field(kind: Kind, employee_key: str) -> str:
    return employee_key if kind is Kind.employees else KEY_FIELDS[kind]


def normalise_key(kind: Kind, value: Any, employee_key: str = "email") -> str | None:
    """The form in which two keys of `kind` are the same key; None for a value that cannot
    be a key (validation reports why)."""
    if isinstance(value, bool) or not isinstance(value, str | int):
        return None
    text = str(value).strip()
    if not text:
        return None
    if kind in _NAMED:
        return " ".join(text.split()).casefold()
    if kind is Kind.automation_rules:
        try:
            return str(int(text))
        except ValueError:
            return None
    if kind is Kind.employees and "email" in employee_key.casefold():
        return text.casefold()  # e-mail addresses are compared without regard to case
    return text
