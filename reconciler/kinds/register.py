"""The register of kinds (as octoDNS's `Record.register_type`): each managed kind's
resource (its reader and planner) and its export converter, imported by name where the
import check sees them, in the order of the table of kinds (`kinds/table.py`) and
refused at import when out of step with it. Every list of resources or converters is
derived from it. Adding a kind is its package (`kinds/<kind>/`), its row in the table and
its line here.

`RESOURCES` are read and planned in order: the custom field catalogue the kinds share,
then the kinds, where a kind comes after the kinds whose ids or names it uses. `LOCATORS`
find again, by natural key, an object whose create lost its answer (apply re-reads before
it would create a second one): the `locate` methods of the resources whose creates are
not idempotent (and `companies`, idempotent by name).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from reconciler.export.entries import Converter, Entry
from reconciler.kinds.assets.export import assets
from reconciler.kinds.assets.planner import AssetsResource
from reconciler.kinds.automation_rules.export import automation_rules
from reconciler.kinds.automation_rules.planner import AutomationRulesResource
from reconciler.kinds.categories.export import categories
from reconciler.kinds.categories.planner import CategoriesResource
from reconciler.kinds.companies.export import companies
from reconciler.kinds.companies.planner import CompaniesResource
from reconciler.kinds.custom_fields.planner import CustomFieldsResource
from reconciler.kinds.departments.export import departments
from reconciler.kinds.departments.planner import DepartmentsResource
from reconciler.kinds.employees.export import employees
from reconciler.kinds.employees.planner import EmployeesResource
from reconciler.kinds.table import KINDS
from reconciler.kinds.tech_permissions.export import tech_permissions
from reconciler.kinds.tech_permissions.planner import TechPermissionsResource
from reconciler.kinds.users.export import users
from reconciler.kinds.users.planner import UsersResource
from reconciler.plans import Change
from reconciler.resources.base import Resource

Convert = Callable[[Converter], list[Entry]]
Locate = Callable[[Change, Any, Any, Any], Awaitable[Any]]


@dataclass(frozen=True)
class Registered:
    """A kind's behaviour: its resource, and its converter (named as its `Kind` member)."""

    resource: Resource
    convert: Convert


def _in_table_order(*kinds: Registered) -> tuple[Registered, ...]:
    """The register as given, refused at import when out of step with the table."""
    rows = [(row.name, row.kind.name) for row in KINDS]
    given = [(k.resource.kind, k.convert.__name__) for k in kinds]
    if given != rows:  # pragma: no cover - a programming error
        raise RuntimeError("kinds/register.py: the register must follow the table of kinds")
    return kinds


REGISTER: tuple[Registered, ...] = _in_table_order(
    Registered(CompaniesResource(), companies),
    Registered(DepartmentsResource(), departments),
    Registered(CategoriesResource(), categories),
    Registered(UsersResource(), users),
    Registered(TechPermissionsResource(), tech_permissions),
    Registered(AssetsResource(), assets),
    Registered(AutomationRulesResource(), automation_rules),
    Registered(EmployeesResource(), employees),
)

RESOURCES: tuple[Resource, ...] = (
    CustomFieldsResource(),
    *(registered.resource for registered in REGISTER),
)
BY_KIND: dict[str, Resource] = {resource.kind: resource for resource in RESOURCES}
LOCATORS: dict[str, Locate] = {
    resource.kind: resource.locate for resource in RESOURCES if hasattr(resource, "locate")
}
CONVERTERS: dict[str, Convert] = {
    registered.resource.kind: registered.convert for registered in REGISTER
}

__all__ = [
    "BY_KIND",
    "CONVERTERS",
    "LOCATORS",
    "REGISTER",
    "RESOURCES",
    "Convert",
    "Locate",
    "Registered",
]
