"""Tech permissions: keyed by category name; `technicians` (usernames) is authoritative for
that category. Read per category with `TechsForCategory`, changed with
`AddCategoryTechPermission` and `RemoveCategoryTechPermission`.

Decisions:
- The category is the one `categories` matches (same name, and the section its entry
  gives); its id is a `Ref` when the plan creates it. `TechsForCategory` is read only for
  entries whose category exists live, and, when pruning, for every other live category.
- Usernames resolve to live user ids (from the users list, or from the category's own
  technicians), or to the `Ref` of a user the plan creates; anything else is an error
  with the closest usernames. Technicians are compared by user id.
- Action: `create` when the category has no technicians live, `delete` when the entry
  empties it (`technicians: []`), `update` otherwise; the field `technicians` shows the
  sorted usernames before and after.
- Pruning (only when the manifests list tech permissions) empties the permissions of
  every live category the manifests do not name: a `delete` marked as a removal. A pruned
  category whose name another category shares is keyed `NAME (SECTION)`, so that two
  changes never share an address.
- A technician with no category permission left is, in the helpdesk's model, a
  technician of every category, so the service may end the technician role when the
  last permission goes (the sandbox does). A user the plan removes from categories and
  lists under none of the managed ones gets a warning saying so (not for administrators,
  who see every category anyway).
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from reconciler.changes import (
    Action,
    Change,
    Diagnostic,
    FieldChange,
    Operation,
    Ref,
    address,
    error,
    warning,
)
from reconciler.manifest import DesiredState
from reconciler.manifest.kinds import service_of
from reconciler.manifest.models import TechPermission
from reconciler.resources.base import KindPlan, PlanContext, Reader, norm_key
from reconciler.resources.categories import (
    CategoryMatch,
    LiveCategories,
    LiveCategory,
    section_wishes,
)
from reconciler.resources.custom_fields import closest
from reconciler.resources.users import LiveUsers

KIND = "tech_permissions"
ADD_PATH = "/api/AddCategoryTechPermission"
REMOVE_PATH = "/api/RemoveCategoryTechPermission"


@dataclass(frozen=True)
class Technician:
    id: int
    username: str


@dataclass(frozen=True)
class LiveTechPermissions:
    by_category: Mapping[int, tuple[Technician, ...]]  # only the categories read

    def __len__(self) -> int:
        """The number of live objects (what the safety brake counts)."""
        return sum(1 for technicians in self.by_category.values() if technicians)

    def digest_data(self) -> Any:
        return [
            [category_id, sorted((t.id, t.username) for t in techs)]
            for category_id, techs in sorted(self.by_category.items())
        ]


def parse_technician(raw: Mapping[str, Any]) -> Technician:
    return Technician(
        id=int(raw.get("UserID") or raw.get("UserId") or raw["ID"]),
        username=str(raw.get("Username") or ""),
    )


def _prunes(reader: Reader) -> bool:
    """Whether this run prunes tech permissions: only when the manifests list some."""
    return KIND in reader.prune and bool(reader.desired.manifest.tech_permissions)


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


def _sorted_names(names: list[str]) -> list[str]:
    return sorted(names, key=str.casefold)


@dataclass
class _Removed:
    """Who the plan takes out of some category: for the technician-role warning."""

    users: dict[int, str] = field(default_factory=dict)


class TechPermissionsResource:
    kind = KIND
    service = service_of(KIND)

    def needs(self, desired: DesiredState) -> bool:
        return bool(desired.manifest.tech_permissions)

    async def read(self, reader: Reader) -> LiveTechPermissions:
        categories = await reader.get("categories") or LiveCategories({})
        ids = categories_to_read(categories, reader.desired, _prunes(reader))
        found = await asyncio.gather(*(reader.helpdesk.techs_for_category(i) for i in ids))
        return LiveTechPermissions(
            {
                i: tuple(parse_technician(raw) for raw in items)
                for i, items in zip(ids, found, strict=True)
            }
        )

    def diff(self, ctx: PlanContext) -> KindPlan:
        categories = ctx.live_of("categories", LiveCategories) or LiveCategories({})
        users = ctx.live_of("users", LiveUsers) or LiveUsers({})
        live = ctx.live_of(KIND, LiveTechPermissions) or LiveTechPermissions({})
        wishes = section_wishes(ctx.desired)
        result = KindPlan()
        removed = _Removed()
        entries = ctx.desired.manifest.tech_permissions
        kept: set[str] = set()  # usernames some entry lists
        matched: set[int] = set()
        for entry in entries:
            kept.update(norm_key(name) for name in entry.technicians)
            found = categories.match(entry.category, wishes)
            if found.live is not None:
                matched.add(found.live.id)
                current = live.by_category.get(found.live.id, ())
                self._entry(ctx, entry, found.live.id, current, users, removed, result)
                continue
            ref = ctx.created_ref("categories", entry.category)
            if ref is None:
                result.diagnostics.append(self._unknown_category(ctx, entry, categories, found))
                continue
            self._entry(ctx, entry, ref, (), users, removed, result)
        if ctx.prunes(KIND) and entries:
            self._prune(categories, live, matched, removed, result)
        self._warn_role_loss(ctx, removed, kept, users, result)
        return result

    def _warn_role_loss(
        self,
        ctx: PlanContext,
        removed: _Removed,
        kept: set[str],
        users: LiveUsers,
        result: KindPlan,
    ) -> None:
        """Warn about users taken out of categories and listed under none, unless they are
        administrators or the plan disables them anyway."""
        entries = {norm_key(u.username): u for u in ctx.desired.manifest.users}
        prunes_users = ctx.prunes("users") and bool(entries)
        for username in sorted(removed.users.values(), key=str.casefold):
            key = norm_key(username)
            user = users.get(username)
            entry = entries.get(key)
            disabled = (entry is None and prunes_users) or (entry is not None and entry.disabled)
            if key in kept or disabled or (user is not None and user.is_admin):
                continue
            result.diagnostics.append(
                warning(
                    "is removed from categories and listed under none of the managed ones: if "
                    "these were the last category permissions, the helpdesk may stop treating "
                    "the user as a technician",
                    address("users", username),
                    "list the user under the technicians of the categories they should keep",
                )
            )

    def _entry(
        self,
        ctx: PlanContext,
        entry: TechPermission,
        category_id: int | Ref,
        current: tuple[Technician, ...],
        users: LiveUsers,
        removed: _Removed,
        result: KindPlan,
    ) -> None:
        addr = address(KIND, entry.category)
        location = ctx.location(KIND, entry.category)
        listed = {norm_key(t.username): t for t in current}
        wanted: dict[str, tuple[int | Ref, str]] = {}  # normalised username -> (id, name)
        for index, username in enumerate(entry.technicians):
            key = norm_key(username)
            if key in wanted:
                continue
            user = users.get(username)
            if user is not None:
                wanted[key] = (user.id, user.username)
            elif key in listed:
                wanted[key] = (listed[key].id, listed[key].username)
            elif (ref := ctx.created_ref("users", username)) is not None:
                wanted[key] = (ref, username)
            else:
                known = [u.username for u in users.by_key.values()]
                known += [u.username for u in ctx.desired.manifest.users]
                result.diagnostics.append(
                    error(
                        f"unknown technician {username!r}: no such user exists or is created "
                        "by this plan" + closest(username, known),
                        addr,
                        "add the user under `users` in the manifests, or fix the username",
                        ctx.desired.location(KIND, entry.category, "technicians", index)
                        or location,
                    )
                )
        current_ids = {t.id for t in current}
        wanted_ids = {ident for ident, _ in wanted.values() if isinstance(ident, int)}
        adds = [(i, n) for i, n in wanted.values() if isinstance(i, Ref) or i not in current_ids]
        drops = [t for t in current if t.id not in wanted_ids]
        if not adds and not drops:
            return
        action = Action.update
        if not current:
            action = Action.create
        elif not wanted:
            action = Action.delete
        operations = [
            Operation(
                "helpdesk",
                "POST",
                ADD_PATH,
                {"userId": ident, "categoryId": category_id},
                description=f"add {name}",
            )
            for ident, name in sorted(adds, key=lambda a: a[1].casefold())
        ]
        operations += self._removals(drops, category_id, removed)
        fields = (
            FieldChange(
                "technicians",
                _sorted_names([t.username for t in current]),
                _sorted_names([name for _, name in wanted.values()]),
            ),
        )
        result.changes.append(Change(KIND, entry.category, action, fields, tuple(operations)))

    def _removals(
        self, drops: list[Technician], category_id: int | Ref, removed: _Removed
    ) -> list[Operation]:
        for tech in drops:
            removed.users[tech.id] = tech.username
        return [
            Operation(
                "helpdesk",
                "POST",
                REMOVE_PATH,
                {"userId": t.id, "categoryId": category_id},
                description=f"remove {t.username}",
            )
            for t in sorted(drops, key=lambda t: t.username.casefold())
        ]

    def _prune(
        self,
        categories: LiveCategories,
        live: LiveTechPermissions,
        matched: set[int],
        removed: _Removed,
        result: KindPlan,
    ) -> None:
        unread = [
            c.name for c in categories.all() if c.id not in matched and c.id not in live.by_category
        ]
        if unread:
            # `read` covers them whenever this run prunes; should it not, say so rather than
            # prune nothing quietly.
            result.diagnostics.append(
                error(
                    f"the technicians of {len(unread)} categories not in the manifests were "
                    f"not read, so their permissions cannot be pruned ({', '.join(unread)})",
                    None,
                    "plan again; if this persists, it is a bug of the reconciler",
                )
            )
        for category in categories.all():
            techs = live.by_category.get(category.id, ())
            if category.id in matched or not techs:
                continue
            fields = (FieldChange("technicians", _sorted_names([t.username for t in techs]), []),)
            result.changes.append(
                Change(
                    KIND,
                    _prune_key(category, categories),
                    Action.delete,
                    fields,
                    tuple(self._removals(list(techs), category.id, removed)),
                    reason="not in the manifests (pruned)",
                    removal=True,
                )
            )

    def _unknown_category(
        self,
        ctx: PlanContext,
        entry: TechPermission,
        categories: LiveCategories,
        found: CategoryMatch,
    ) -> Diagnostic:
        addr = address(KIND, entry.category)
        location = ctx.location(KIND, entry.category)
        if found.ambiguous:
            return error(
                f"category {entry.category!r} exists in several sections, and the manifests "
                "do not say which",
                addr,
                "add the category under `categories` with its `section`",
                location,
            )
        listed = [
            c.name
            for c in ctx.desired.manifest.categories
            if norm_key(c.name) == norm_key(entry.category)
        ]
        if found.others or listed:
            # Its `categories` entry carries the error that says why (section, move).
            return error(
                f"category {entry.category!r} is in the manifests but cannot be created or "
                f"matched (see {address('categories', (listed or [entry.category])[0])})",
                addr,
                None,
                location,
            )
        known = [c.name for c in categories.all()]
        return error(
            f"category {entry.category!r} does not exist and is not created by this plan"
            + closest(entry.category, known),
            addr,
            "add it under `categories` to create it, or fix the name",
            ctx.desired.location(KIND, entry.category, "category") or location,
        )


def _prune_key(category: LiveCategory, categories: LiveCategories) -> str:
    """The category's name, or `NAME (SECTION)` when several categories share the name."""
    if len(categories.named(category.name)) < 2:
        return category.name
    return f"{category.name} ({category.section or 'no section'})"
