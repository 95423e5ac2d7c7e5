"""Tech permissions' live state: the technicians of each category read
(`TechsForCategory`), and their reader: the categories whose entries name them, every
category when pruning, and in a full read every category selected. See
`tech_permissions.py` for the decisions."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from reconciler.manifest import DesiredState
from reconciler.resources.base import Reader, norm_key
from reconciler.resources.category_records import LiveCategories, section_wishes

KIND = "tech_permissions"


@dataclass(frozen=True)
class Technician:
    id: int
    username: str


@dataclass(frozen=True)
class LiveTechPermissions:
    by_category: Mapping[int, tuple[Technician, ...]]  # only the categories read
    names: Mapping[int, str] = field(default_factory=dict)  # category id -> name, as read

    def __len__(self) -> int:
        """The number of live objects (what the safety brake counts)."""
        return sum(1 for technicians in self.by_category.values() if technicians)

    def digest_data(self) -> Any:
        return [
            [category_id, sorted((t.id, t.username) for t in techs)]
            for category_id, techs in sorted(self.by_category.items())
        ]

    def keys(self) -> frozenset[str]:
        """The names of the categories read that have technicians."""
        return frozenset(norm_key(self.names[i]) for i, techs in self.by_category.items() if techs)


def parse_technician(raw: Mapping[str, Any]) -> Technician:
    return Technician(
        id=int(raw.get("UserID") or raw.get("UserId") or raw["ID"]),
        username=str(raw.get("Username") or ""),
    )


def categories_to_read(categories: LiveCategories, desired: DesiredState, prune: bool) -> list[int]:
    """Ids of the live categories whose technicians the plan needs (pure)."""
    wishes = section_wishes(desired)
    ids: list[int] = []
    for entry in desired.manifest.tech_permissions:
        found = categories.match(entry.category, wishes).live
        if found is not None and found.id not in ids:
            ids.append(found.id)
    if prune:
        ids += [c.id for c in categories.all() if c.id not in ids]
    return ids


async def read_tech_permissions(reader: Reader) -> LiveTechPermissions:
    categories = await reader.get("categories") or LiveCategories({})
    # Pruning only when the manifests list tech permissions (see tech_permissions.py).
    prune = KIND in reader.prune and bool(reader.desired.manifest.tech_permissions)
    ids = categories_to_read(categories, reader.desired, prune)
    if reader.full(KIND):
        ids += [c.id for c in categories.all() if c.id not in ids and reader.wants(KIND, c.name)]
    found = await asyncio.gather(*(reader.helpdesk.techs_for_category(i) for i in ids))
    read = set(ids)
    names = {c.id: c.name for c in categories.all() if c.id in read}
    by_category = {
        i: tuple(parse_technician(raw) for raw in items)
        for i, items in zip(ids, found, strict=True)
    }
    return LiveTechPermissions(by_category, names)
