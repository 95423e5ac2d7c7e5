"""Workspace employees' live state: the records of `GET /api/employees` as the service
gives them (an open field set), grouped by the normalised key field
(`settings.employee_key`), and their reader. The decisions are the planner's
(`planner.py`)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from reconciler.kinds.table import normalise_key
from reconciler.resources.base import Keyed, Reader
from reconciler.resources.scope_reads import in_scope

KIND = "workspace.employees"
# The service's own fields: never compared, written or exported.
SERVER_FIELDS = frozenset({"id", "createdAt", "updatedAt"})


@dataclass(frozen=True)
class LiveEmployees(Keyed):
    kind = KIND
    key_field: str
    by_key: Mapping[str, tuple[Mapping[str, Any], ...]]  # normalised key -> records
    unkeyed: int = 0  # records without the key field
    records: tuple[Mapping[str, Any], ...] = ()  # every record, in the service's order

    def __len__(self) -> int:
        return sum(len(group) for group in self.by_key.values()) + self.unkeyed

    def digest_data(self) -> Any:
        records = [r for _, group in sorted(self.by_key.items()) for r in group]
        # The workspace answers JSON: a record's keys are strings.
        return [[[k, r[k]] for k in sorted(r)] for r in records] + [self.unkeyed]

    def named_ids(self) -> Iterable[tuple[str, object]]:
        for group in self.by_key.values():
            for record in group:
                yield str(record.get(self.key_field)), record.get("id")

    def get(self, key: Any) -> tuple[Mapping[str, Any], ...]:
        normalised = employee_key(self.key_field, key)
        return self.by_key.get(normalised, ()) if normalised is not None else ()

    def unique_values(self, field: str) -> Iterable[tuple[str, str, object, Any]]:
        """(normalised key, key as live, id, value of `field`) of every keyed record."""
        for key, group in self.by_key.items():
            for record in group:
                yield key, str(record.get(self.key_field)), record.get("id"), record.get(field)


def employee_key(key_field: str, value: Any) -> str | None:
    return normalise_key(KIND, value, key_field)


def index_employees(key_field: str, records: list[Mapping[str, Any]]) -> LiveEmployees:
    by_key: dict[str, tuple[Mapping[str, Any], ...]] = {}
    unkeyed = 0
    for record in records:
        key = employee_key(key_field, record.get(key_field))
        if key is None:
            unkeyed += 1
        else:
            by_key[key] = (*by_key.get(key, ()), record)
    return LiveEmployees(key_field, by_key, unkeyed, tuple(records))


async def read_employees(reader: Reader) -> LiveEmployees:
    key_field = reader.desired.settings.employee_key
    wanted = in_scope(
        reader.desired,
        KIND,
        lambda e: str(e.get(key_field) or ""),
        lambda e: str(e.get("email") or ""),
    )
    records = [e for e in await reader.workspace.employees() if wanted(e)]
    return index_employees(key_field, records)
