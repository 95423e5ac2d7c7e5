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
from enum import Enum, auto
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


class KeyForm(Enum):
    # Compared as members only; no value is ever read or shown (a string value was an
    # equivalent mutant on every seed that drew it).
    NAME = auto()  # case- and spacing-insensitive (`norm_key`)
    ID = auto()  # an integer id
    FIELD = auto()  # `settings.employee_key`: e-mail keys without regard to case


@dataclass(frozen=True)
class KindSpec:
    """One row: what is known about a kind before anything is read."""

    kind: Kind
    service: str  # HELPDESK or WORKSPACE
    key_field: str | None  # None: `settings.employee_key`
    key_form: KeyForm
    model: type[BaseModel]  # the manifest entry's model
    noun: str  # one object of it, in messages: "user"
    export_file: str = ""  # the file `export` writes it to
    # The entry fields that name objects of another kind: (field, kind). Partial plans
    # take the entries named along, validation checks the names, planners resolve them.
    references: tuple[tuple[str, Kind], ...] = ()
    # The kinds its export looks names up in (ids to names), read beside it.
    export_reads: tuple[Kind, ...] = ()
    custom_field_usage: int | None = None  # the helpdesk's usage type of its custom fields
    unique: tuple[str, ...] = ()  # fields the service requires unique across the kind
    exclusive: tuple[str, ...] = ()  # list fields whose items belong to one entry only
    # The other kinds whose plans need its live state, each with the entry field that
    # must be set for it (None: any entry): read for them even when it has no entry.
    read_for: tuple[tuple[Kind, str | None], ...] = ()
    prune_refused: str = ""  # why `settings.prune` cannot list it ("": it can)
    prune_warning: str = ""  # what pruning it does that must be said ("pruning KIND ...")
    # Whether its entries may name former keys (`previously:`): the API can change its
    # key in place (an update sending the new key). Otherwise what to do instead.
    renamable: bool = False
    rename_instead: str = ""
    # The entry field whose value, shared by a create and an unlisted live object of the
    # kind, says the create may be that object renamed: the plan shows the `previously:`
    # line to add (planning/rename_hints.py). The key field itself: the same key written
    # with other separators. "": no such hint.
    renamed_if: str = ""

    @property
    def name(self) -> str:
        return self.kind.value

    @property
    def file_name(self) -> str:
        return self.export_file or f"{self.name}.yaml"

    @property
    def path(self) -> tuple[str, ...]:
        """Where its entries are in a manifest: ("users",), ("workspace", "employees")."""
        return tuple(self.name.split("."))

    @property
    def open_fields(self) -> bool:
        """Whether its entries' field set is open (passed through as written)."""
        return self.model.model_config.get("extra") == "allow"

    def target(self, field: str) -> str:
        """The kind its entries' `field` names (a declared reference)."""
        return next(kind.value for name, kind in self.references if name == field)

    def targets(self, *fields: str) -> tuple[str, ...]:
        return tuple(self.target(field) for field in fields)

    def key_field_for(self, employee_key: str) -> str:
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
        if self.case_sensitive(employee_key):
            return text
        return email_key(text)

    def case_sensitive(self, employee_key: str) -> bool:
        """Whether two of its keys differing only in case are two keys: so is an employee
        key other than an e-mail address (`settings.employee_key`), compared as written."""
        return self.key_form is KeyForm.FIELD and "email" not in employee_key.casefold()


# One row per kind, in `Kind`'s order. Left out, the export file is named as the kind
# (`.yaml`). Each kind's resource is registered in resources/__init__.py and its export
# converter in export/run.py, by import, in this order. Serial numbers compare as names:
# `sn-0001` in a manifest and `SN-0001` live are one asset, and telling them apart would
# create a duplicate (and, under prune, disable the original).
_NO_DELETE = "the helpdesk API cannot delete {}"
KINDS: tuple[KindSpec, ...] = (
    KindSpec(
        Kind.companies, HELPDESK, "name", KeyForm.NAME, Company, "company",
        custom_field_usage=4, exclusive=("email_domains",),
        # A user's company is checked against the live ones: CreateUser/UpdateUser would
        # create a missing one as a side effect, and a company cannot be deleted.
        read_for=((Kind.assets, "company"), (Kind.users, "company")),
        prune_refused=_NO_DELETE.format("companies"), renamable=True,
        renamed_if="email_domains",
    ),
    KindSpec(
        Kind.departments, HELPDESK, "name", KeyForm.NAME, Department, "department",
        # The Users list carries only a DepartmentID: its name comes from here.
        read_for=((Kind.users, None),),
        prune_refused=_NO_DELETE.format("departments"),
        rename_instead="name the new department on its users (UpdateUser creates it), then "
        "rename or delete the old one in the helpdesk's admin panel",
    ),
    KindSpec(
        Kind.categories, HELPDESK, "name", KeyForm.NAME, Category, "category",
        read_for=((Kind.tech_permissions, None),),  # their category ids come from here
        prune_refused=_NO_DELETE.format("categories"),
        rename_instead="rename it in the helpdesk's admin panel, then change its name in "
        "the manifests (and in the tech permissions that name it)",
    ),
    KindSpec(
        Kind.users, HELPDESK, "username", KeyForm.NAME, User, "user",
        references=(("company", Kind.companies), ("department", Kind.departments)),
        custom_field_usage=3, unique=("email",), renamable=True, renamed_if="email",
        # Ids of the users named, and the administrators (implicit technicians).
        read_for=((Kind.tech_permissions, None), (Kind.assets, "assigned_users")),
    ),
    KindSpec(
        Kind.tech_permissions, HELPDESK, "category", KeyForm.NAME, TechPermission,
        "tech permission",
        references=(("category", Kind.categories), ("technicians", Kind.users)),
        # The administrators, who are implicit technicians (never exported).
        export_reads=(Kind.users,),
        rename_instead="they follow their category: rename the category in the helpdesk's "
        "admin panel, then change `category:` here",
    ),
    KindSpec(
        Kind.assets, HELPDESK, "serial_number", KeyForm.NAME, Asset, "asset",
        references=(("company", Kind.companies), ("assigned_users", Kind.users)),
        export_reads=(Kind.companies, Kind.users), custom_field_usage=2, renamable=True,
        renamed_if="serial_number",
    ),
    KindSpec(
        Kind.automation_rules, HELPDESK, "id", KeyForm.ID, AutomationRule, "automation rule",
        prune_refused="the API cannot list automation rules, so rules missing from the "
        "manifests cannot be found (disable one with `enabled: false`)",
        rename_instead="rules are addressed by their id, which never changes: use the new "
        "rule's id",
    ),
    KindSpec(
        Kind.employees, WORKSPACE, None, KeyForm.FIELD, Employee, "employee",
        export_file="workspace.yaml",
        prune_warning="deletes employees missing from the manifests, and that cannot be "
        "undone",
        unique=("email",), renamable=True,
    ),
)  # fmt: skip

if [row.kind for row in KINDS] != list(Kind):  # pragma: no cover - a programming error
    raise RuntimeError("manifest/kinds.py: KINDS must have one row per Kind, in its order")

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


def norm_key(text: str) -> str:
    """Names compare case-insensitively and ignore surrounding white space and runs of it."""
    return " ".join(text.split()).casefold()


def email_key(text: str) -> str:
    """The form in which two e-mail addresses are one address, wherever two are compared
    (keys, the fields the service keeps unique, users' and employees' values): without
    regard to case or surrounding white space, as the services match them."""
    return text.strip().casefold()


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
    "email_key",
    "key_field",
    "norm_key",
    "normalise_key",
    "references_to",
    "service_of",
    "spec",
]
