"""The names the manifests write: each kind's keys, and the names by which an entry refers
to another kind's objects (a user's company, a technician: the table of kinds' references).
`validate` checks them against each other offline; the planner checks them against the
live names (`live/lookalikes.py`)."""

from __future__ import annotations

from collections.abc import Iterable

from pydantic import BaseModel

from reconciler.kinds.employees import Employee
from reconciler.kinds.table import KINDS, key_field
from reconciler.manifest.desired import DesiredState
from reconciler.manifest.models import Kind

Path = tuple[str | int, ...]
Reference = tuple[Kind, str, Path, Kind, str]  # (kind, entry key, path, kind referred to, name)


def keyed_entries(desired: DesiredState, kind: Kind) -> list[tuple[str, BaseModel]]:
    """A kind's entries, each with its key as written, in the order they were written."""
    name = key_field(kind, desired.settings.employee_key)
    found: list[tuple[str, BaseModel]] = []
    for entry in desired.entries(kind):
        if isinstance(entry, Employee):
            found.append((str(entry.fields.get(name, "")), entry))
        else:
            found.append((str(getattr(entry, name)), entry))
    return found


def entry_keys(desired: DesiredState, kind: Kind) -> list[str]:
    """The keys of a kind's entries as written, in the order they were written."""
    return [key for key, _ in keyed_entries(desired, kind)]


def named_references(desired: DesiredState) -> Iterable[Reference]:
    """Names that refer to another kind's objects, as the table of kinds declares them
    (`KindSpec.references`): (kind, entry key, path, kind referred to, name). A
    permission's key is the name of the category it is for. In the order: names in fields,
    then keys that are names, then the items of lists (each in the table's order)."""
    fields: list[Reference] = []
    keys: list[Reference] = []
    items: list[Reference] = []
    for row in KINDS:
        key_name = row.key_field_for(desired.settings.employee_key)
        for entry in desired.entries(row.kind):
            key = str(getattr(entry, key_name))
            for name, target in row.references:
                value = getattr(entry, name)
                if isinstance(value, list):
                    items += [(row.kind, key, (name, i), target, v) for i, v in enumerate(value)]
                elif value:
                    found = keys if name == key_name else fields
                    found.append((row.kind, key, (name,), target, value))
    return fields + keys + items
