"""What a row of the table of kinds says (`KindSpec`), and how keys compare. Each kind's row
is in its own package (`kinds/<kind>/__init__.py`); the table that lists them is
`kinds/table.py`. See docs/architecture.md.

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

from reconciler.manifest.models import Kind

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
    # line to add (planning/renames.py). The key field itself: the same key written
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


# Why `settings.prune` cannot list a kind the API gives no way to delete.
NO_DELETE = "the helpdesk API cannot delete {}"


def norm_key(text: str) -> str:
    """Names compare case-insensitively and ignore surrounding white space and runs of it."""
    return " ".join(text.split()).casefold()


def email_key(text: str) -> str:
    """The form in which two e-mail addresses are one address, wherever two are compared
    (keys, the fields the service keeps unique, users' and employees' values): without
    regard to case or surrounding white space, as the services match them."""
    return text.strip().casefold()


__all__ = [
    "HELPDESK",
    "NO_DELETE",
    "WORKSPACE",
    "KeyForm",
    "KindSpec",
    "email_key",
    "norm_key",
]
