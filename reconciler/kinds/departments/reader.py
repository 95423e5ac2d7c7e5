"""Departments' live state: `Departments` items keyed by name (of several with one name,
the last listed), and their reader. The `Users` list of some versions names a user's
department only by id: `name_of` names it. The decisions are the planner's
(`planner.py`)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from reconciler.resources.base import Keyed, Reader, norm_key
from reconciler.resources.scope_reads import in_scope

KIND = "departments"


@dataclass(frozen=True)
class LiveDepartments(Keyed):
    kind = KIND
    by_key: Mapping[str, tuple[int, str]]  # normalised name -> (id, name)
    # Departments outside `settings.scope`: only to name a listed user's department id.
    outside: Mapping[str, tuple[int, str]] = field(default_factory=dict)

    def __len__(self) -> int:
        return len(self.by_key)

    def digest_data(self) -> Any:
        return sorted(self.by_key.values())

    def named_ids(self) -> Iterable[tuple[str, object]]:
        return ((name, ident) for ident, name in self.by_key.values())

    def name_of(self, department_id: int | None) -> str | None:
        for ident, name in [*self.by_key.values(), *self.outside.values()]:
            if ident == department_id:
                return name
        return None

    def get(self, name: str) -> tuple[int, str] | None:
        return self.by_key.get(norm_key(name))

    def names(self) -> list[str]:
        return [name for _, name in self.by_key.values()]


def parse_department(raw: Mapping[str, Any]) -> tuple[int, str]:
    ident = int(raw.get("DepartmentID") or raw.get("DepartmentId") or raw["ID"])
    return ident, str(raw.get("Name") or "")


async def read_departments(reader: Reader) -> LiveDepartments:
    """Every department; those outside the scope's patterns kept apart (`outside`)."""
    by_key: dict[str, tuple[int, str]] = {}
    outside: dict[str, tuple[int, str]] = {}
    wanted = in_scope(reader.desired, KIND, lambda pair: pair[1])
    for raw in await reader.helpdesk.departments():
        pair = parse_department(raw)
        (by_key if wanted(pair) else outside)[norm_key(pair[1])] = pair
    return LiveDepartments(by_key, outside)
