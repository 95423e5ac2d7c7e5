"""Unmanaged objects and coverage (issue 12, item 6): of each kind the manifests manage
and the plan read in full anyway, the live objects no manifest entry names, and the share
of the live objects the manifests do manage. Pure: computed from what was read, no call.

What a plan reads in full anyway: the kinds whose plan read is one listing of every live
object (companies, departments, categories, users, assets, employees); technician
permissions only when every category's technicians were read (a prune, or a full read);
automation rules never (the API cannot list them). The others are reported as not read
in full: nothing is guessed about objects nobody read.

Not counted as live objects, unless an entry names them (so never unmanaged noise):
- the account reconciler runs as (the administrator whose credentials it uses);
- disabled users and assets: disabling is how the tool removes them, so a pruned object
  stays out of the figures once removed;
- categories whose only technicians are implicit ones (administrators, technicians of
  every category: `kinds/tech_permissions/reader.py`), which are no permission list.

A live object the plan removes (a prune) is managed: the manifests decide its fate.
"""

from __future__ import annotations

from collections.abc import Iterable

from reconciler.kinds.assets.reader import LiveAssets
from reconciler.kinds.categories.reader import LiveCategories
from reconciler.kinds.companies.reader import LiveCompanies
from reconciler.kinds.departments.reader import LiveDepartments
from reconciler.kinds.employees.reader import LiveEmployees
from reconciler.kinds.table import KIND_NAMES, key_field, normalise_key
from reconciler.kinds.tech_permissions.reader import (
    CATEGORIES,
    USERS,
    LiveTechPermissions,
    implicit_access,
)
from reconciler.kinds.users.reader import LiveUsers
from reconciler.live import LiveState
from reconciler.manifest.desired import DesiredState
from reconciler.plans import Change
from reconciler.plans.coverage import Coverage, KindCoverage
from reconciler.resources.base import norm_key

# Why a managed kind's figures are not given, as the plan says it.
NOT_LISTABLE = "the API cannot list them"
NAMED_ONLY = "a plan reads only the categories its entries name (--prune reads them all)"
STATE_UNKNOWN = "the listing does not say which are disabled"


def coverage(desired: DesiredState, live: LiveState, changes: Iterable[Change]) -> Coverage:
    """The coverage of every kind the manifests list entries of and the plan read."""
    employee_key = desired.settings.employee_key
    removed: dict[str, set[str]] = {}
    for change in changes:
        key = normalise_key(change.kind, change.key, employee_key) if change.removal else None
        if key is not None:
            removed.setdefault(change.kind, set()).add(key)
    used = {str(kind) for kind in desired.kinds_used}
    kinds: dict[str, KindCoverage] = {}
    partial: dict[str, str] = {}
    for kind in KIND_NAMES:
        if kind not in used or kind not in live.kinds:
            continue
        found = live_objects(kind, live)
        if isinstance(found, str):
            partial[kind] = found
            continue
        objects, quiet = found
        named = _named(desired, kind) | removed.get(kind, set())
        counted = {k: v for k, v in objects.items() if k in named or k not in quiet}
        others = sorted((v for k, v in counted.items() if k not in named), key=str.casefold)
        kinds[kind] = KindCoverage(len(counted), len(counted) - len(others), tuple(others))
    return Coverage(kinds, partial)


Objects = tuple[dict[str, str], set[str]]  # normalised key -> key as live spells it; quiet


def live_objects(kind: str, live: LiveState) -> Objects | str:
    """The live objects of `kind` by normalised key, and the keys counted only when an
    entry names them (`quiet`); or why the kind was not read in full."""
    data = live.kinds.get(kind)
    if isinstance(data, LiveCompanies):
        return {k: c.name for k, c in data.by_key.items()}, set()
    if isinstance(data, LiveDepartments):
        return {k: name for k, (_, name) in data.by_key.items()}, set()
    if isinstance(data, LiveCategories):
        return {k: found[0].name for k, found in data.by_key.items()}, set()
    if isinstance(data, LiveUsers):
        quiet = {k for k, u in data.by_key.items() if u.disabled or u.id == data.caller_id}
        return {k: u.username for k, u in data.by_key.items()}, quiet
    if isinstance(data, LiveAssets):
        return _assets(data)
    if isinstance(data, LiveEmployees):
        return {k: str(found[0].get(data.key_field)) for k, found in data.by_key.items()}, set()
    if isinstance(data, LiveTechPermissions):
        return _tech_permissions(data, live)
    return NOT_LISTABLE


def _assets(data: LiveAssets) -> Objects | str:
    objects: dict[str, str] = {}
    quiet: set[str] = set()
    for key, found in data.by_key.items():
        if any(a.enabled is None for a in found):
            return STATE_UNKNOWN
        objects[key] = str(found[0].serial_number)
        if not any(a.enabled for a in found):
            quiet.add(key)
    return objects, quiet


def _tech_permissions(data: LiveTechPermissions, live: LiveState) -> Objects | str:
    categories = live.kinds.get(CATEGORIES)  # the kinds its entries name (table of kinds)
    users = live.kinds.get(USERS)
    if not isinstance(categories, LiveCategories):
        return NAMED_ONLY
    ids = [c.id for c in categories.all()]
    if not set(ids) <= set(data.by_category):
        return NAMED_ONLY
    admins = (
        [u.id for u in users.by_key.values() if u.is_admin] if isinstance(users, LiveUsers) else []
    )
    access = implicit_access(admins, data.by_category, ids)
    objects = {
        norm_key(data.names[category_id]): data.names[category_id]
        for category_id, technicians in data.by_category.items()
        if any(not access.covers(t.id) for t in technicians)
    }
    return objects, set()


def _named(desired: DesiredState, kind: str) -> set[str]:
    """The normalised keys the manifests' entries of `kind` give."""
    employee_key = desired.settings.employee_key
    name = key_field(kind, employee_key)
    keys = (normalise_key(kind, getattr(e, name), employee_key) for e in desired.entries(kind))
    return {k for k in keys if k is not None}
