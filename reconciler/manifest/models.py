"""The manifest format (DESIGN §2) as pydantic models: the one source of the JSON Schema.

Every entry's fields other than its key are optional: a field omitted from a manifest is
not managed (left as it is live). `model_fields_set` tells which fields an entry gives;
`managed_fields(entry)` lists them. Unknown fields are errors everywhere except in
workspace employees, whose field set is open and passed through as written.
"""

from __future__ import annotations

from datetime import date
from enum import StrEnum
from typing import Annotated, Any

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, StringConstraints

from reconciler.manifest.scopes import AssetScope, Ownership, PatternScope, UserScope
from reconciler.manifest.values import (
    Count32,
    Email,
    Hostname,
    Id32,
    Percent,
    StrictBool,
    finite,
)

NonEmpty = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1)]
VariableName = Annotated[str, StringConstraints(pattern=r"^[A-Za-z_][A-Za-z0-9_]*$")]


# The default factories are Python functions rather than `list` and `dict`: pydantic reads
# each factory's signature, and a builtin's is parsed from its text by `tokenize`, whose
# regular expressions cost more to compile than the rest of a model (issue 25).
def _empty_list() -> list[Any]:
    return []


def _empty_dict() -> dict[Any, Any]:
    return {}


def _none_as_empty(value: Any) -> Any:
    # `users:` with every entry commented out is null in YAML; it means "none", not an error.
    return [] if value is None else value


# The name column of the table of kinds (`manifest/kinds.py`), which gives each member the
# rest of its row. (The docstring below is the schema's description.)
class Kind(StrEnum):
    """The managed kinds, in the order they are shown and applied."""

    companies = "companies"
    departments = "departments"
    categories = "categories"
    users = "users"
    tech_permissions = "tech_permissions"
    assets = "assets"
    automation_rules = "automation_rules"
    employees = "workspace.employees"


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class OptionId(_Strict):
    """A dropdown value given by option id, for fields whose option names the API hides."""

    option_id: Id32 = Field(description="The dropdown option's id.", examples=[7])


# A custom field value: text, a date, a checkbox, a dropdown option (by name or id), or
# null to clear. Values are normalised before comparison (see resources/custom_fields.py).
CustomFieldValue = Annotated[
    bool | int | float | date | OptionId | str | None, BeforeValidator(finite)
]
CustomFields = dict[NonEmpty, CustomFieldValue]

_PREVIOUSLY = (
    "Former keys of this entry: when its key is not live and exactly one of these is, that "
    "object is renamed in place (its id and everything referring to it kept). See "
    "docs/renaming.md."
)


def _previously() -> Any:
    return Field(None, description=_PREVIOUSLY, examples=[["tina"]])


# The field naming an entry's former keys (kinds whose rows in the table of kinds say
# `renamable`); never a managed field of the live object.
PREVIOUSLY = "previously"

_CUSTOM_FIELDS = (
    "Custom field values by field name: text, a number, a date, true/false for a checkbox, "
    "a dropdown option by name or as {option_id: N}, or null to clear."
)


class Safety(_Strict):
    """Brakes on `apply`: refuse a plan that changes too much of a kind (override: --force)."""

    max_change_percent: Percent = Field(
        30, description="Refuse when removals+updates exceed this share of a kind."
    )
    min_existing: Count32 = Field(
        10,
        description="The percent brake applies only to kinds with at least this many objects.",
    )
    max_irreversible: Count32 = Field(
        1,
        description=(
            "Refuse more irreversible deletions (workspace employees) than this in one run; "
            "more than half of a kind is refused whatever its size."
        ),
    )


class Scope(BaseModel):
    """Per kind, the slice the manifests own; a kind without an entry is owned whole.
    Outside it nothing is read in full, changed, pruned or reported."""

    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)

    users: UserScope | None = None
    assets: AssetScope | None = None
    companies: PatternScope | None = Field(None, description="Patterns on the company's name.")
    departments: PatternScope | None = Field(None, description="Patterns on the department's name.")
    categories: PatternScope | None = Field(
        None, description="Patterns on `section/name` (`name` for a category in no section)."
    )
    employees: PatternScope | None = Field(
        None,
        alias="workspace.employees",
        description="Patterns on the employee's key (and e-mail).",
    )

    def of(self, kind: str) -> PatternScope | UserScope | AssetScope | None:
        """The scope of `kind` (a `Kind` value), or None: owned whole."""
        for name, field in type(self).model_fields.items():
            if (field.alias or name) == kind:
                found: PatternScope | UserScope | AssetScope | None = getattr(self, name)
                return found
        return None


class Settings(_Strict):
    """Settings of the whole run; at most one `settings` across all manifest files (null
    or empty: the defaults)."""

    prune: list[Kind] = Field(
        default_factory=_empty_list,
        description="Kinds whose live objects missing from the manifests are removed "
        "(the softest removal the API has).",
        examples=[["assets", "tech_permissions"]],
    )
    ignore_fields: dict[Kind, list[NonEmpty]] = Field(
        default_factory=_empty_dict,
        description="Fields never compared or written, per kind.",
        examples=[{"assets": ["comments"]}],
    )
    safety: Safety = Field(default_factory=Safety)
    ownership: Ownership | None = Field(
        None,
        description="A custom field and value that mark the objects the manifests own "
        "(users, companies, assets): every create sets it, a listed object lacking it gets "
        "it, and prune removes only unlisted objects that carry it (docs/sharing.md).",
    )
    scope: Scope = Field(
        default_factory=Scope,
        examples=[{"users": {"companies": ["Acme Corp"]}, "assets": {"include": ["PF*"]}}],
    )
    custom_field_options: dict[NonEmpty, dict[NonEmpty, Id32]] = Field(
        default_factory=_empty_dict,
        description="Dropdown option ids by field name and option name, for fields whose "
        "options the API does not list.",
        examples=[{"Contract tier": {"Gold": 7, "Silver": 8}}],
    )
    section_ids: dict[NonEmpty, Id32] = Field(
        default_factory=_empty_dict,
        description="Category section ids by section name, for sections no category is in "
        "yet: the API shows a section only through the categories in it and cannot create "
        "one, so a section made in the admin panel is named here until a category sits in it.",
        examples=[{"IT Support": 1, "Workplace": 2}],
    )
    employee_key: NonEmpty = Field(
        "email", description="The field that identifies a workspace employee."
    )
    allow_variables: list[VariableName] = Field(
        default_factory=_empty_list,
        description="Variables whose names say they hold a secret (*_TOKEN, *_PASSWORD, "
        "*_SECRET, *_KEY) that ${NAME} may read all the same, as they hold none. A "
        "credential (HELPDESK_TOKEN, those reconciler.yaml names under credentials, a CI "
        "platform's token) is never read.",
        examples=[["SUPPORT_PORTAL_KEY"]],
    )


class Company(_Strict):
    """A company (`companies`), matched by name."""

    name: NonEmpty = Field(description="Key, case-insensitive.", examples=["Acme Corp"])
    previously: list[NonEmpty] | None = _previously()
    email_domains: list[Hostname] | None = Field(
        None,
        description="E-mail domains of the company's users; compared as a set.",
        examples=[["acme.com", "acme.co.uk"]],
    )
    notes: str | None = None
    custom_fields: CustomFields | None = Field(None, description=_CUSTOM_FIELDS)


class Department(_Strict):
    """A department (`departments`): the API creates one only through a user naming it."""

    name: NonEmpty = Field(description="Key, case-insensitive.", examples=["IT"])


class Category(_Strict):
    """A ticket category (`categories`), matched by name."""

    name: NonEmpty = Field(description="Key, case-insensitive.", examples=["Hardware"])
    section: NonEmpty | None = Field(None, description="The section's name; none for no section.")


class TechPermission(_Strict):
    """The technicians allowed on one category (`tech_permissions`)."""

    category: NonEmpty = Field(description="Key: the category's name.")
    technicians: list[NonEmpty] = Field(description="Usernames; authoritative for this category.")


class User(_Strict):
    """A helpdesk user (`users`), matched by username. Passwords never appear here."""

    username: NonEmpty = Field(description="Key, case-insensitive.", examples=["alice"])
    previously: list[NonEmpty] | None = _previously()
    email: Email | None = Field(None, description="Required to create the user.")
    first_name: str | None = None
    last_name: str | None = None
    phone: str | None = None
    location: str | None = None
    notes: str | None = None
    company: NonEmpty | None = Field(None, description="The company's name.")
    department: NonEmpty | None = Field(None, description="The department's name.")
    is_admin: StrictBool | None = None
    disabled: StrictBool | None = Field(None, description="A disabled user cannot log in.")
    send_welcome_email: StrictBool = Field(
        False, description="Only on creation: send the welcome e-mail."
    )
    custom_fields: CustomFields | None = Field(None, description=_CUSTOM_FIELDS)


class Asset(_Strict):
    """An asset (`assets`), matched by serial number."""

    serial_number: NonEmpty = Field(description="Key.", examples=["SN-0001"])
    previously: list[NonEmpty] | None = _previously()
    model_name: NonEmpty | None = Field(None, description="Required to create the asset.")
    manufacturer: NonEmpty | None = Field(None, description="Required to create the asset.")
    type: NonEmpty | None = Field(None, description="Required to create the asset.")
    supplier: NonEmpty | None = Field(None, description="Required to create the asset.")
    location: str | None = None
    comments: str | None = None
    quantity: Id32 | None = None
    company: NonEmpty | None = Field(None, description="The company's name.")
    assigned_users: list[NonEmpty] | None = Field(
        None, description="Usernames; authoritative when given."
    )
    enabled: StrictBool | None = Field(None, description="false disables the asset.")
    custom_fields: CustomFields | None = Field(None, description=_CUSTOM_FIELDS)


class AutomationRule(_Strict):
    """An automation rule's state (`automation_rules`): only enabled or disabled."""

    id: Id32 = Field(description="Key: rules are addressed by id (the API cannot list them).")
    name: NonEmpty | None = Field(None, description="When given, it must match the live rule.")
    enabled: StrictBool


class Employee(BaseModel):
    """An open mapping of the workspace service's employee fields, passed through as
    written; `settings.employee_key` (default `email`) names its key."""

    model_config = ConfigDict(extra="allow", frozen=True)

    email: Email | None = Field(
        None, description="An e-mail address, checked as users' e-mails are (offline)."
    )
    previously: list[NonEmpty] | None = _previously()

    @property
    def fields(self) -> dict[str, Any]:
        """The fields as written, `email` among them when given."""
        given = {"email": self.email} if "email" in self.model_fields_set else {}
        return {**given, **(self.model_extra or {})}


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
