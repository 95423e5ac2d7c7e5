"""Tech permissions' live state: the technicians of each category read
(`TechsForCategory`), and their reader: the categories whose entries name them, every
category when pruning, and in a full read every category selected. See
`tech_permissions.py` for the decisions."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from reconciler.kinds.categories.reader import LiveCategories, section_wishes
from reconciler.kinds.table import spec
from reconciler.kinds.users.reader import LiveUsers
from reconciler.manifest.desired import DesiredState
from reconciler.resources.base import Reader, norm_key
from reconciler.resources.implicit_technicians import worth_reading_all

KIND = "tech_permissions"
# The kinds its entries name (the table of kinds' references).
CATEGORIES, USERS = spec(KIND).targets("category", "technicians")


@dataclass(frozen=True)
class Technician:
    id: int
    username: str


@dataclass(frozen=True)
class LiveTechPermissions:
    by_category: Mapping[int, tuple[Technician, ...]]  # only the categories read
    names: Mapping[int, str] = field(default_factory=dict)  # category id -> name, as read

    def __len__(self) -> int:
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
    categories = await reader.get(CATEGORIES) or LiveCategories({})
    # Pruning only when the manifests list tech permissions (see tech_permissions.py).
    prune = KIND in reader.prune and bool(reader.desired.manifest.tech_permissions)
    ids = categories_to_read(categories, reader.desired, prune)
    if reader.full(KIND):
        ids += [c.id for c in categories.all() if c.id not in ids and reader.wants(KIND, c.name)]
    by_category = await read_technicians(reader, ids)
    rest = [c.id for c in categories.all() if c.id not in by_category]
    if rest:
        # An all-category technician shows only in the full picture (implicit_technicians):
        # read the other categories too when a removal from a managed one depends on it.
        users = await reader.get(USERS) or LiveUsers({})
        admins = {u.id for u in users.by_key.values() if u.is_admin}
        wanted = wanted_by_category(categories, reader.desired)
        if worth_reading_all(by_category, admins, wanted, len(categories)):
            by_category.update(await read_technicians(reader, rest))
    names = {c.id: c.name for c in categories.all() if c.id in by_category}
    return LiveTechPermissions(by_category, names)


async def read_technicians(reader: Reader, ids: list[int]) -> dict[int, tuple[Technician, ...]]:
    found = await asyncio.gather(*(reader.helpdesk.techs_for_category(i) for i in ids))
    return {
        i: tuple(parse_technician(raw) for raw in items)
        for i, items in zip(ids, found, strict=True)  # pragma: no mutate
    }


def wanted_by_category(categories: LiveCategories, desired: DesiredState) -> dict[int, set[str]]:
    """Live category id -> the normalised usernames its manifest entry lists."""
    wishes = section_wishes(desired)
    out: dict[int, set[str]] = {}
    for entry in desired.manifest.tech_permissions:
        found = categories.match(entry.category, wishes).live
        if found is not None:
            out.setdefault(found.id, set()).update(norm_key(n) for n in entry.technicians)
    return out
