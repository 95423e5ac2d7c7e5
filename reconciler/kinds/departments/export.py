"""Departments as manifest entries (pure; see export/entries.py): each name the
`Departments` list gives."""

from __future__ import annotations

from reconciler.export.entries import Converter, Entry
from reconciler.kinds.departments.reader import LiveDepartments


def departments(conv: Converter) -> list[Entry]:
    names = [name for _, name in conv.live("departments", LiveDepartments({})).by_key.values()]
    return [{"name": name} for name in conv.keyed("departments", names, lambda n: n)]
