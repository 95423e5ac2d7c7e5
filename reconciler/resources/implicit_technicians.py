"""Implicit technicians: users whose access to a category does not come from that
category's permission list (issue 11, item 1).

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

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Protocol

from reconciler.plans import Diagnostic, address, note
from reconciler.resources.base import norm_key

ADMIN_ROLE = "the administrator role"
EVERY_CATEGORY = "every category"


class Listed(Protocol):
    """A technician as `TechsForCategory` lists it."""

    @property
    def id(self) -> int: ...

    @property
    def username(self) -> str: ...


@dataclass(frozen=True)
class ImplicitAccess:
    """User id -> how the user has access to every category (`ADMIN_ROLE`, or
    `EVERY_CATEGORY` for an all-category technician)."""

    through: Mapping[int, str]

    def covers(self, user_id: object) -> bool:
        return isinstance(user_id, int) and user_id in self.through


NONE = ImplicitAccess({})


def listed_everywhere(
    by_category: Mapping[int, Iterable[Listed]], live_category_ids: Iterable[int]
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
    by_category: Mapping[int, Iterable[Listed]],
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
    by_category: Mapping[int, Iterable[Listed]],
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
