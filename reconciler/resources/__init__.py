"""One module per managed kind (DESIGN §1), plus the custom field catalogue they share.

`RESOURCES` lists them in the order they are read and planned: a kind comes after the
kinds whose ids or names it uses.
"""

from __future__ import annotations

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

__all__ = ["RESOURCES", "KindPlan", "PlanContext", "Resource", "norm_key"]
