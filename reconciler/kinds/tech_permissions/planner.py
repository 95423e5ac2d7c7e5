"""Tech permissions: keyed by category name; `technicians` (usernames) is authoritative for
that category. Read per category with `TechsForCategory`, changed with
`AddCategoryTechPermission` and `RemoveCategoryTechPermission`.

Decisions:
- Implicit technicians (`reader.py`): administrators, and users listed in
  every live category, are never removed (not by an entry, not by pruning), do not show
  in the `technicians` before/after unless the entry lists them, and are named once in a
  note ("has access through ..."). The technicians of every category are read when a
  removal from a managed category depends on telling an all-category technician.
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

from reconciler.kinds.categories import Category
from reconciler.kinds.categories.reader import (
    TWINS_REMEDY,
    CategoryMatch,
    LiveCategories,
    LiveCategory,
    section_wishes,
)
from reconciler.kinds.custom_fields.planner import closest
from reconciler.kinds.tech_permissions import TechPermission
from reconciler.kinds.tech_permissions.reader import (
    CATEGORIES,
    KIND,
    USERS,
    LiveTechPermissions,
    Technician,
    access_notes,
    implicit_access,
    read_tech_permissions,
)
from reconciler.kinds.users import User
from reconciler.kinds.users.reader import LiveUsers
from reconciler.manifest.scopes import category_name
from reconciler.plans import (
    Action,
    FieldChange,
    Operation,
    Ref,
    address,
    error,
    warning,
)
from reconciler.resources.base import (
    KindPlan,
    KindResource,
    PlanContext,
    Planner,
    norm_key,
    post,
)

ADD_PATH = "AddCategoryTechPermission"
REMOVE_PATH = "RemoveCategoryTechPermission"


def _sorted_names(names: list[str]) -> list[str]:
    return sorted(names, key=str.casefold)


class TechPermissionsResource(KindResource):
    kind = KIND
    uses: tuple[str, ...] = (CATEGORIES, USERS)  # users: the administrators (implicit technicians)

    read = staticmethod(read_tech_permissions)

    def diff(self, ctx: PlanContext) -> KindPlan:
        planner = _Planner(ctx)
        entries = ctx.desired.manifest.tech_permissions
        for entry in entries:
            planner.plan(entry)
        if ctx.prunes(KIND) and entries:
            planner.prune()
        planner.warn_role_loss()
        planner.result.diagnostics += access_notes(planner.access, planner.implicit, USERS)
        return planner.result


class _Planner(Planner):
    """Plans one run's tech permissions."""

    def __init__(self, ctx: PlanContext) -> None:
        super().__init__(ctx, KIND)
        self.categories = ctx.live_of(CATEGORIES, LiveCategories) or LiveCategories({})
        self.users = ctx.live_of(USERS, LiveUsers) or LiveUsers({})
        self.live = ctx.live_of(KIND, LiveTechPermissions) or LiveTechPermissions({})
        self.wishes = section_wishes(ctx.desired)
        self.removed: dict[int, str] = {}  # who leaves some category: for the role warning
        self.kept: set[str] = set()  # usernames some entry lists
        self.matched: set[int] = set()  # the live categories the entries name
        admins = [u.id for u in self.users.by_key.values() if u.is_admin]
        all_ids = [c.id for c in self.categories.all()]
        self.access = implicit_access(admins, self.live.by_category, all_ids)
        self.implicit: dict[int, str] = {}  # implicit technicians left alone: named once

    def plan(self, entry: TechPermission) -> None:
        self.kept.update(norm_key(name) for name in entry.technicians)
        found = self.categories.match(entry.category, self.wishes)
        if found.live is not None:
            self.matched.add(found.live.id)
            self.entry(entry, found.live.id, self.live.by_category.get(found.live.id, ()))
            return
        ref = self.ctx.created_ref(CATEGORIES, entry.category)
        if ref is None:
            self.unknown_category(entry, found)
        else:
            self.entry(entry, ref, ())

    def warn_role_loss(self) -> None:
        """Warn about users taken out of categories and listed under none, unless the plan
        disables them anyway. (An administrator is never taken out: the administrator role
        gives access to every category, see `drops`.)"""
        entries = {norm_key(u.username): u for u in self.ctx.desired.entries_as(USERS, User)}
        prunes_users = self.ctx.prunes(USERS) and bool(entries)
        for username in sorted(self.removed.values(), key=str.casefold):
            key = norm_key(username)
            entry = entries.get(key)
            disabled = (entry is None and prunes_users) or (entry is not None and entry.disabled)
            if key in self.kept or disabled:
                continue
            self.result.diagnostics.append(
                warning(
                    "is removed from categories and listed under none of the managed ones: if "
                    "these were the last category permissions, the helpdesk may stop treating "
                    "the user as a technician",
                    address(USERS, username),
                    "list the user under the technicians of the categories they should keep",
                )
            )

    def wanted(
        self, entry: TechPermission, current: tuple[Technician, ...]
    ) -> dict[str, tuple[int | Ref, str]]:
        """Normalised username -> (user id, or the `Ref` of its create; name), for the
        technicians an entry lists, users outside the users' scope included (read by
        username); an unknown one is reported and left out."""
        listed = {norm_key(t.username): t for t in current}
        wanted: dict[str, tuple[int | Ref, str]] = {}
        for index, username in enumerate(entry.technicians):
            key = norm_key(username)
            if key in wanted:
                continue
            user = self.users.get(username) or self.users.outside.get(key)
            if user is not None:
                wanted[key] = (user.id, user.username)
            elif key in listed:
                wanted[key] = (listed[key].id, listed[key].username)
            elif isinstance(ref := self.ctx.resolve(USERS, username), Ref):
                wanted[key] = (ref, username)
            else:
                known = self.ctx.known_names(USERS)
                self.problem(
                    entry.category,
                    f"unknown technician {username!r}: no such user exists or is created "
                    "by this plan" + closest(username, known),
                    "add the user under `users` in the manifests, or fix the username",
                    # Read from a file, every listed name has its own position (a merged
                    # `<<:` list names the anchor's).
                    "technicians",
                    index,
                )
        return wanted

    def entry(
        self, entry: TechPermission, category_id: int | Ref, current: tuple[Technician, ...]
    ) -> None:
        wanted = self.wanted(entry, current)
        current_ids = {t.id for t in current}
        wanted_ids = {ident for ident, _ in wanted.values() if isinstance(ident, int)}
        adds = [(i, n) for i, n in wanted.values() if isinstance(i, Ref) or i not in current_ids]
        drops = self.drops(current, wanted_ids)
        # Implicit technicians the entry does not list are not this category's permissions.
        current = tuple(t for t in current if t.id in wanted_ids or not self.access.covers(t.id))
        if not adds and not drops:
            return
        action = Action.update
        if not current:
            action = Action.create
        elif not wanted:
            action = Action.delete
        operations = [
            _operation(ADD_PATH, ident, category_id, f"add {name}")
            for ident, name in sorted(adds, key=lambda a: a[1].casefold())
        ]
        operations += self.removals(drops, category_id)
        before = _sorted_names([t.username for t in current])
        field = FieldChange("technicians", before, _sorted_names([n for _, n in wanted.values()]))
        self.change(entry.category, action, [field], operations)

    def drops(self, listed: tuple[Technician, ...], keep: set[int]) -> list[Technician]:
        """The technicians of `listed` to remove: neither kept nor implicit."""
        out = []
        for tech in listed:
            if tech.id in keep:
                continue
            if self.access.covers(tech.id):
                self.implicit[tech.id] = tech.username
            else:
                out.append(tech)
        return out

    def removals(self, drops: list[Technician], category_id: int | Ref) -> list[Operation]:
        for tech in drops:
            self.removed[tech.id] = tech.username
        return [
            _operation(REMOVE_PATH, t.id, category_id, f"remove {t.username}")
            for t in sorted(drops, key=lambda t: t.username.casefold())
        ]

    def prune(self) -> None:
        categories, live = self.categories, self.live
        unread = [
            c.name
            for c in categories.all()
            if c.id not in self.matched and c.id not in live.by_category
        ]
        if unread:
            # `read` covers them whenever this run prunes; should it not, say so rather than
            # prune nothing quietly.
            self.result.diagnostics.append(
                error(
                    f"the technicians of {len(unread)} categories not in the manifests were "
                    f"not read, so their permissions cannot be pruned ({', '.join(unread)})",
                    None,
                    "plan again; if this persists, it is a bug of the reconciler",
                )
            )
        for category in categories.all():
            if category.id in self.matched:
                continue
            techs = self.drops(live.by_category.get(category.id, ()), set())
            if not techs:
                continue
            field = FieldChange("technicians", _sorted_names([t.username for t in techs]), [])
            self.change(
                _prune_key(category, categories),
                Action.delete,
                [field],
                self.removals(techs, category.id),
                reason="not in the manifests (pruned)",
                removal=True,
            )

    def unknown_category(self, entry: TechPermission, found: CategoryMatch) -> None:
        key = entry.category
        if found.twins:
            self.problem(key, found.twins_error(repr(key)), TWINS_REMEDY)
            return
        if found.ambiguous:
            message = f"category {key!r} exists in several sections, and the manifests "
            remedy = "add the category under `categories` with its `section`"
            self.problem(key, message + "do not say which", remedy)
            return
        listed = [
            c.name
            for c in self.ctx.desired.entries_as(CATEGORIES, Category)
            if norm_key(c.name) == norm_key(key)
        ]
        if found.others or listed:
            # Its `categories` entry carries the error that says why (section, move).
            self.problem(
                key,
                f"category {key!r} is in the manifests but cannot be created or "
                f"matched (see {address(CATEGORIES, (listed or [key])[0])})",
            )
            return
        outside = [c for c in self.categories.outside if norm_key(c.name) == norm_key(key)]
        if outside:
            shown = ", ".join(repr(category_name(c.name, c.section)) for c in outside)
            self.problem(
                key,
                f"category {key!r} is outside settings.scope.categories ({shown}): "
                "the technicians of a category outside the scope are not managed",
                "add the category to settings.scope.categories, or drop this entry",
                "category",
            )
            return
        known = [c.name for c in self.categories.all()]
        self.problem(
            key,
            f"category {key!r} does not exist and is not created by this plan"
            + closest(key, known),
            "add it under `categories` to create it, or fix the name",
            "category",
        )


def _prune_key(category: LiveCategory, categories: LiveCategories) -> str:
    """The category's name, or `NAME (SECTION)` when several categories share the name."""
    if len(categories.named(category.name)) < 2:
        return category.name
    return f"{category.name} ({category.section or 'no section'})"


def _operation(path: str, user: int | Ref, category: int | Ref, description: str) -> Operation:
    return post(path, {"userId": user, "categoryId": category}, description)
