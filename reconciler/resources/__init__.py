"""One module per managed kind (DESIGN §1), plus the custom field catalogue they share.

`RESOURCES` lists them in the order they are read and planned: the catalogue, then the
kinds in the order of the table of kinds (`manifest/kinds.py`), where a kind comes after
the kinds whose ids or names it uses. `LOCATORS` find again, by natural key, an object
whose create lost its answer (apply re-reads before it would create a second one): the
`locate` methods of the resources whose creates are not idempotent (and `companies`,
idempotent by name).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from reconciler.manifest.kinds import KIND_NAMES
from reconciler.plans import Change
from reconciler.resources.assets import AssetsResource
from reconciler.resources.automation_rules import AutomationRulesResource
from reconciler.resources.base import KindPlan, PlanContext, Resource, norm_key
from reconciler.resources.categories import CategoriesResource
from reconciler.resources.companies import CompaniesResource
from reconciler.resources.custom_fields import CustomFieldsResource
from reconciler.resources.departments import DepartmentsResource
from reconciler.resources.employees import EmployeesResource
from reconciler.resources.tech_permissions import TechPermissionsResource
from reconciler.resources.users import UsersResource


def _in_table_order(*resources: Resource) -> tuple[Resource, ...]:
    """The register as given, refused at import when out of step with the table."""
    if tuple(r.kind for r in resources[1:]) != KIND_NAMES:  # pragma: no cover - a bug
        raise RuntimeError("resources/__init__.py: RESOURCES must follow the table of kinds")
    return resources


# The register of kinds (as octoDNS's `Record.register_type`): one resource per row of
# the table of kinds, in its order, each imported above where the import check sees it.
# Adding a kind is its row in manifest/kinds.py, its module here and its line below.
RESOURCES: tuple[Resource, ...] = _in_table_order(
    CustomFieldsResource(),
    CompaniesResource(),
    DepartmentsResource(),
    CategoriesResource(),
    UsersResource(),
    TechPermissionsResource(),
    AssetsResource(),
    AutomationRulesResource(),
    EmployeesResource(),
)
BY_KIND: dict[str, Resource] = {resource.kind: resource for resource in RESOURCES}

Locate = Callable[[Change, Any, Any, Any], Awaitable[Any]]  # pragma: no mutate

LOCATORS: dict[str, Locate] = {
    resource.kind: resource.locate for resource in RESOURCES if hasattr(resource, "locate")
}

__all__ = [
    "BY_KIND",
    "LOCATORS",
    "RESOURCES",
    "KindPlan",
    "Locate",
    "PlanContext",
    "Resource",
    "norm_key",
]
