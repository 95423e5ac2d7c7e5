"""The table of kinds: one row per managed kind, from which every list of kinds is derived
(the loader's models and key fields, the planner's order, the resources read, the service
each kind needs, the files export writes). See docs/architecture.md.

The kinds' names and their order are the members of `Kind` (models.py: the JSON Schema's
enum, which type checking needs spelled out); this table gives each member the rest of
its row, and refuses at import to be out of step with it. It lives beside the models it
names, below everything that reads it (the loader, the resources, the planner, export).

Keys compare in one of three forms (`KeyForm`): names without regard to case and runs of
white space (`norm_key`: also how every other name is compared, such as a user's
company), rule ids as integers, and workspace employees by the configured field (e-mail
addresses without regard to case).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
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

HELPDESK = "helpdesk"
WORKSPACE = "workspace"


class KeyForm(StrEnum):
    NAME = "name"  # case- and spacing-insensitive (`norm_key`)
    ID = "id"  # an integer id
    FIELD = "field"  # `settings.employee_key`: e-mail keys without regard to case


@dataclass(frozen=True)
class KindSpec:
    """One row: what is known about a kind before anything is read."""

    kind: Kind
    service: str  # HELPDESK or WORKSPACE
    key_field: str | None  # None: `settings.employee_key`
    key_form: KeyForm
    model: type[BaseModel]  # the manifest entry's model
    module: str = ""  # its modules: resources/<module>.py, with <module>_records.py
    export_file: str = ""  # the file `export` writes it to

    @property
    def name(self) -> str:
        return self.kind.value

    @property
    def resource(self) -> str:
        """`module:Class` of its resource: resources/companies.py, CompaniesResource."""
        module = self.module or self.name
        title = "".join(part.title() for part in module.split("_"))
        return f"reconciler.resources.{module}:{title}Resource"

    @property
    def file_name(self) -> str:
        return self.export_file or f"{self.name}.yaml"

    def key_field_for(self, employee_key: str = "email") -> str:
        return self.key_field or employee_key

    def normalise(self, value: Any, employee_key: str = "email") -> str | None:
        """The form in which two keys of this kind are the same key; None for a value
        that cannot be a key (validation reports why)."""
        if isinstance(value, bool) or not isinstance(value, str | int):
            return None
        text = str(value).strip()
        if not text:
            return None
        if self.key_form is KeyForm.NAME:
            return norm_key(text)
        if self.key_form is KeyForm.ID:
            try:
                return str(int(text))
            except ValueError:
                return None
        if "email" in employee_key.casefold():
            return text.casefold()  # e-mail addresses are compared without regard to case
        return text


# One row per kind, in `Kind`'s order. Left out, the module is the kind's name and so is
# the export file's (`.yaml`). Serial numbers compare as names: `sn-0001` in a manifest
# and `SN-0001` live are one asset, and telling them apart would create a duplicate (and,
# under prune, disable the original).
# fmt: off
KINDS: tuple[KindSpec, ...] = (
    #        kind                   service    key field        key form       model
    KindSpec(Kind.companies,        HELPDESK,  "name",          KeyForm.NAME,  Company),
    KindSpec(Kind.departments,      HELPDESK,  "name",          KeyForm.NAME,  Department),
    KindSpec(Kind.categories,       HELPDESK,  "name",          KeyForm.NAME,  Category),
    KindSpec(Kind.users,            HELPDESK,  "username",      KeyForm.NAME,  User),
    KindSpec(Kind.tech_permissions, HELPDESK,  "category",      KeyForm.NAME,  TechPermission),
    KindSpec(Kind.assets,           HELPDESK,  "serial_number", KeyForm.NAME,  Asset),
    KindSpec(Kind.automation_rules, HELPDESK,  "id",            KeyForm.ID,    AutomationRule),
    KindSpec(Kind.employees,        WORKSPACE, None,            KeyForm.FIELD, Employee,
             module="employees", export_file="workspace.yaml"),
)
# fmt: on

if [row.kind for row in KINDS] != list(Kind):  # pragma: no cover - a programming error
    raise RuntimeError("manifest/kinds.py: KINDS must have one row per Kind, in its order")

BY_NAME: dict[str, KindSpec] = {row.name: row for row in KINDS}
KIND_NAMES: tuple[str, ...] = tuple(BY_NAME)


def spec(kind: str) -> KindSpec:
    """The row of `kind`; KeyError for a name that is not a managed kind."""
    return BY_NAME[kind]


def service_of(kind: str) -> str:
    return BY_NAME[kind].service


def norm_key(text: str) -> str:
    """Names compare case-insensitively and ignore surrounding white space and runs of it."""
    return " ".join(text.split()).casefold()


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
    "HELPDESK",
    "KEY_FIELDS",
    "KINDS",
    "KIND_NAMES",
    "WORKSPACE",
    "KeyForm",
    "KindSpec",
    "key_field",
    "norm_key",
    "normalise_key",
    "service_of",
    "spec",
]
