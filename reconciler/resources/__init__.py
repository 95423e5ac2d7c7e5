"""One module per managed kind (DESIGN §1), plus the custom field catalogue they share.

`RESOURCES` lists them in the order they are read and planned: a kind comes after the
kinds whose ids or names it uses. `LOCATORS` find again, by natural key, an object whose
create lost its answer (apply re-reads before it would create a second one).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from reconciler.changes import Change
from reconciler.manifest import DesiredState
from reconciler.resources import assets, categories, companies, employees, users
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

RESOURCES: tuple[Resource, ...] = (
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

Locate = Callable[[Change, Any, Any, DesiredState], Awaitable[Any]]

# The kinds whose creates are not idempotent (and `companies`, idempotent by name).
LOCATORS: dict[str, Locate] = {
    "companies": companies.locate,
    "categories": categories.locate,
    "users": users.locate,
    "assets": assets.locate,
    "workspace.employees": employees.locate,
}

__all__ = ["LOCATORS", "RESOURCES", "KindPlan", "Locate", "PlanContext", "Resource", "norm_key"]
