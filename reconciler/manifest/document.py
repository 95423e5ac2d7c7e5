"""The manifest document (DESIGN §2): the entries of every kind under their kind's name,
and `settings`; the loader validates each file and the merged result against it."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BaseModel, BeforeValidator, Field

from reconciler.kinds.assets import Asset
from reconciler.kinds.automation_rules import AutomationRule
from reconciler.kinds.categories import Category
from reconciler.kinds.companies import Company
from reconciler.kinds.departments import Department
from reconciler.kinds.employees import Employee
from reconciler.kinds.tech_permissions import TechPermission
from reconciler.kinds.users import User
from reconciler.manifest.models import PREVIOUSLY, Settings, _empty_list, _none_as_empty, _Strict


def _nullable(entry: Any) -> BeforeValidator:
    """Reads null as an empty list, and says so in the JSON Schema."""
    return BeforeValidator(_none_as_empty, json_schema_input_type=list[entry] | None)


Employees = Annotated[list[Employee], _nullable(Employee)]
Companies = Annotated[list[Company], _nullable(Company)]
Departments = Annotated[list[Department], _nullable(Department)]
Categories = Annotated[list[Category], _nullable(Category)]
TechPermissions = Annotated[list[TechPermission], _nullable(TechPermission)]
Users = Annotated[list[User], _nullable(User)]
Assets = Annotated[list[Asset], _nullable(Asset)]
AutomationRules = Annotated[list[AutomationRule], _nullable(AutomationRule)]


class Workspace(_Strict):
    """Objects of the workspace service."""

    employees: Employees = Field(
        default_factory=_empty_list, description="Key: settings.employee_key (default email)."
    )


class Manifest(_Strict):
    """A reconciler manifest: one file (or one YAML document), or all of them merged.

    Any text may hold `${NAME}`, replaced from the variables or the environment when the
    manifests are loaded (`$${` writes a literal `${`); a value written entirely as
    `${NAME}` may also stand for a boolean, a number or a kind (see `Variable`)."""

    settings: Settings | None = Field(None, description="At most once across all files.")
    companies: Companies = Field(default_factory=_empty_list, description="Key: name.")
    departments: Departments = Field(default_factory=_empty_list, description="Key: name.")
    categories: Categories = Field(default_factory=_empty_list, description="Key: name.")
    tech_permissions: TechPermissions = Field(
        default_factory=_empty_list, description="Key: category. The technicians of each category."
    )
    users: Users = Field(default_factory=_empty_list, description="Key: username.")
    assets: Assets = Field(default_factory=_empty_list, description="Key: serial_number.")
    automation_rules: AutomationRules = Field(
        default_factory=_empty_list, description="Key: id. Rules are only enabled or disabled."
    )
    workspace: Workspace | None = Field(None, description="The workspace service's objects.")


def managed_fields(entry: BaseModel) -> set[str]:
    """The fields an entry manages: those written in the manifest (not `previously`)."""
    if isinstance(entry, Employee):
        return set(entry.fields)
    return set(entry.model_fields_set) - {PREVIOUSLY}
