"""Tech permissions as manifest entries (pure; see export/entries.py): per category,
its technicians by username, leaving out the administrators, whose access is implicit
(each said in a note), and categories whose name is shared unless their categories are
exported too."""

from __future__ import annotations

from reconciler.export.entries import Converter, Entry, unique_names
from reconciler.kinds.categories.reader import LiveCategories
from reconciler.kinds.table import spec
from reconciler.kinds.tech_permissions.reader import LiveTechPermissions, implicit_access
from reconciler.kinds.users.reader import LiveUsers
from reconciler.resources.base import norm_key


def tech_permissions(conv: Converter) -> list[Entry]:
    categories_kind, users_kind = spec("tech_permissions").targets("category", "technicians")
    categories = conv.live(categories_kind, LiveCategories({}))
    technicians = conv.live("tech_permissions", LiveTechPermissions({})).by_category
    chosen = [c for g in categories.by_key.values() for c in g[:1] if c.id in technicians]
    # The administrators, who have every category without a permission.
    users = conv.live(users_kind, LiveUsers({}))
    admins = [u.id for u in users.items if u.is_admin]
    access = implicit_access(admins, technicians, [c.id for c in categories.all()])
    implicit: dict[int, str] = {}
    entries = []
    for category in conv.keyed("tech_permissions", chosen, lambda c: c.name):
        shared = len(categories.named(category.name)) > 1
        if shared and norm_key(category.name) not in conv.keys.get(categories_kind, set()):
            conv.notes.append(
                f"tech_permissions/{category.name}: left out: several categories have "
                "this name, and only with its `categories` entry (which gives the "
                "section) can the manifests say which one (export categories too)"
            )
            continue
        explicit = [t for t in technicians[category.id] if not access.covers(t.id)]
        implicit.update((t.id, t.username) for t in technicians[category.id] if access.covers(t.id))
        names = unique_names(t.username for t in explicit)
        if not names and not conv.include_empty:
            continue
        entry = {"category": category.name, "technicians": sorted(names, key=str.casefold)}
        entries.append(entry)
    for user_id, username in sorted(implicit.items(), key=lambda i: i[1].casefold()):
        conv.notes.append(
            f"tech_permissions: {username} has access through {access.through[user_id]}: "
            "not written as a category permission (the plan leaves it alone)"
        )
    return entries
