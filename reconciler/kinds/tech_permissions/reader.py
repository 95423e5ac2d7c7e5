"""Tech permissions' live state: the technicians of each category read (`TechsForCategory`),
and their reader: the categories whose entries name them, every category when pruning, and
in a full read every category selected.

Implicit technicians: users whose access to a category does not come from that category's
permission list.

Some helpdesks list them in `TechsForCategory` for every category: administrators, and
technicians allowed to work in every category. Removing them from a category changes
nothing there, so a plan that wanted to would show the same change on every run. They are
decided from what the API answers, never from names:

- administrators: `IsAdmin` in the users list;
- all-category technicians: a user `TechsForCategory` lists in every live category (read
  in full, and at least two of them), on a helpdesk seen listing implicit access: an
  administrator is listed in every category too. A helpdesk that lists only permission
  rows (as the spec reads) lists no administrator everywhere, and there a technician
  listed everywhere was granted each category and is removed like any other. Where
  implicit access is listed, a technician granted each category one by one looks the same
  as one of every category; such a technician is not removed, and the plan's note says
  how to remove one in the helpdesk itself.

An implicit technician is never planned for removal, never counts as drift, is not
exported as an explicit permission, and is named once in the plan ("has access
through ..."). A manifest may still list one explicitly: that permission is added and
kept like any other.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from reconciler.kinds.categories.reader import LiveCategories, section_wishes
from reconciler.kinds.table import spec
from reconciler.kinds.users.reader import LiveUsers
from reconciler.manifest.desired import DesiredState
from reconciler.plans import Diagnostic, address, note
from reconciler.resources.base import Reader, norm_key

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


async def read_tech_permissions(reader: Reader) -> LiveTechPermissions:
    categories = await reader.get(CATEGORIES) or LiveCategories({})
    # Pruning only when the manifests list tech permissions (see the planner).
    prune = KIND in reader.prune and bool(reader.desired.manifest.tech_permissions)
    # The categories the entries name, and when pruning every other one.
    wanted = wanted_by_category(categories, reader.desired)
    ids = [*wanted, *(c.id for c in categories.all() if prune and c.id not in wanted)]
    if reader.full(KIND):
        ids += [c.id for c in categories.all() if c.id not in ids and reader.wants(KIND, c.name)]
    by_category = await read_technicians(reader, ids)
    rest = [c.id for c in categories.all() if c.id not in by_category]
    if rest:
        # An all-category technician shows only in the full picture (see above):
        # read the other categories too when a removal from a managed one depends on it.
        users = await reader.get(USERS) or LiveUsers({})
        admins = {u.id for u in users.by_key.values() if u.is_admin}
        if worth_reading_all(by_category, admins, wanted, len(categories)):
            by_category.update(await read_technicians(reader, rest))
    names = {c.id: c.name for c in categories.all() if c.id in by_category}
    return LiveTechPermissions(by_category, names)


async def read_technicians(reader: Reader, ids: list[int]) -> dict[int, tuple[Technician, ...]]:
    found = await asyncio.gather(*(reader.helpdesk.techs_for_category(i) for i in ids))
    return {
        i: tuple(parse_technician(raw) for raw in items)
        for i, items in zip(ids, found, strict=True)
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


ADMIN_ROLE = "the administrator role"
EVERY_CATEGORY = "every category"


@dataclass(frozen=True)
class ImplicitAccess:
    """User id -> how the user has access to every category (`ADMIN_ROLE`, or
    `EVERY_CATEGORY` for an all-category technician)."""

    through: Mapping[int, str]

    def covers(self, user_id: object) -> bool:
        return isinstance(user_id, int) and user_id in self.through


NONE = ImplicitAccess({})


def listed_everywhere(
    by_category: Mapping[int, Iterable[Technician]], live_category_ids: Iterable[int]
) -> set[int]:
    """Ids of the users listed for every live category, when every live category (at
    least two) was read; otherwise nobody can be told apart. (Not yet evidence of implicit
    access: see `implicit_access`.)"""
    ids = set(live_category_ids)
    if len(ids) < 2 or not ids <= set(by_category):
        return set()
    common: set[int] | None = None
    for category_id in ids:
        listed = {t.id for t in by_category[category_id]}
        common = listed if common is None else common & listed
    return common or set()


def implicit_access(
    admin_ids: Iterable[int],
    by_category: Mapping[int, Iterable[Technician]],
    live_category_ids: Iterable[int],
) -> ImplicitAccess:
    admins = set(admin_ids)
    everywhere = listed_everywhere(by_category, live_category_ids)
    # Without an administrator listed everywhere, the helpdesk lists permission rows only:
    # a technician listed everywhere then holds a row in each category, each removable.
    shows_implicit = bool(everywhere & admins)
    through = {user_id: EVERY_CATEGORY for user_id in everywhere if shows_implicit}
    through.update({user_id: ADMIN_ROLE for user_id in admins})
    return ImplicitAccess(through)


def worth_reading_all(
    by_category: Mapping[int, Iterable[Technician]],
    admin_ids: set[int],
    wanted: Mapping[int, set[str]],
    live_category_count: int,
) -> bool:
    """Whether the technicians of the categories not read yet are needed to tell an
    all-category technician: an administrator (the sign of a helpdesk listing implicit
    access) and someone who is no administrator are listed in every category read so far,
    and a manifest entry of one of them does not list them (a removal is at stake).
    `wanted`: category id -> normalised usernames its entry lists."""
    if live_category_count < 2 or not by_category:
        return False
    lists = {category_id: list(techs) for category_id, techs in by_category.items()}
    everywhere = set.intersection(*({t.id for t in techs} for techs in lists.values()))
    if not everywhere & admin_ids:  # listing permission rows only: nobody is implicit
        return False
    everywhere -= admin_ids
    return any(
        t.id in everywhere and norm_key(t.username) not in wanted.get(category_id, set())
        for category_id, techs in lists.items()
        for t in techs
    )


def access_notes(access: ImplicitAccess, named: Mapping[int, str], users: str) -> list[Diagnostic]:
    """One note per implicit technician the plan would otherwise have removed somewhere
    (`named`: user id -> username; `users`: their kind), in username order."""
    notes = []
    for user_id, username in sorted(named.items(), key=lambda item: item[1].casefold()):
        through = access.through[user_id]
        if through == ADMIN_ROLE:
            remedy = "nothing to do: an administrator works in every category"
        else:
            remedy = (
                "nothing to do for a technician of every category; if the user was granted "
                "each category one by one, remove the ones to drop in the helpdesk itself"
            )
        notes.append(
            note(
                f"{username} has access through {through}: listed by TechsForCategory, "
                "not managed as a category permission",
                address(users, username),
                remedy,
            )
        )
    return notes
