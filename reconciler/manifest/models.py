"""The manifest format (DESIGN §2) as pydantic models: the one source of the JSON Schema.

Every entry's fields other than its key are optional: a field omitted from a manifest is
not managed (left as it is live). `model_fields_set` tells which fields an entry gives;
`managed_fields(entry)` lists them. Unknown fields are errors everywhere except in
workspace employees, whose field set is open and passed through as written.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import date
from enum import StrEnum
from typing import Annotated, Any

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, StringConstraints

from reconciler.manifest.scopes import AssetScope, Ownership, PatternScope, UserScope
from reconciler.manifest.values import (
    Count32,
    Id32,
    Percent,
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


# `settings.custom_field_options` (DESIGN §9): dropdown option ids by kind, then field name,
# then option name, for the fields whose options the API does not list. A companies field
# and a users field of the same name are two fields with their own options, so the table is
# keyed by the kind first, as the manifests spell it; its fields are the kinds that have
# custom fields (the table of kinds' `custom_field_usage`; tests hold the two to
# agreement). A flat table (field name first) is refused with the form to write instead
# (`flat_form`, schema_errors.py).
FieldOptions = dict[NonEmpty, dict[NonEmpty, Id32]]  # field name -> option name -> id


def _options(noun: str) -> Any:
    return Field(
        default_factory=_empty_dict,
        description=f"Option ids of the {noun} custom fields, by field name and option name.",
    )


class CustomFieldOptions(BaseModel):
    """Dropdown option ids by kind, field name and option name, for fields whose options
    the API does not list (a companies field and a users field of one name are two fields).
    A table keyed by field name first is refused."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    companies: FieldOptions = _options("companies'")
    users: FieldOptions = _options("users'")
    assets: FieldOptions = _options("assets'")

    def of(self, kind: str) -> Mapping[str, Mapping[str, int]]:
        """The options of `kind`'s fields (a `Kind` value); empty for a kind without."""
        found: Mapping[str, Mapping[str, int]] = getattr(self, kind, None) or {}
        return found

    def __bool__(self) -> bool:
        return any(getattr(self, name) for name in type(self).model_fields)


def flat_form(name: str) -> str:
    """Why `name` under `settings.custom_field_options` is refused: it is no kind, so the
    table was written flat (field name first), and how to write it."""
    kinds = list(CustomFieldOptions.model_fields)
    return (
        f"'{name}' is not a kind: the options are keyed by kind, then field name "
        f"(a {kinds[0]} field and a {kinds[1]} field of one name are two fields); write "
        f"`custom_field_options: {{{kinds[0]}: {{{name}: {{OPTION: ID}}}}}}` with the kind "
        f"whose field '{name}' is ({', '.join(kinds[:-1])} or {kinds[-1]})"
    )


# The name column of the table of kinds (`kinds/table.py`), whose rows give each member the
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
# null to clear. Values are normalised before comparison (kinds/custom_fields/planner.py).
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
    custom_field_options: CustomFieldOptions = Field(
        default_factory=CustomFieldOptions,
        examples=[{"companies": {"Contract tier": {"Gold": 7, "Silver": 8}}}],
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
