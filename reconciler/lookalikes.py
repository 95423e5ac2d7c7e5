"""Manifest names that a live object's name equals only after Unicode normalisation and
case folding (`manifest/confusables.py`): `Acme` written with a fullwidth A in a manifest,
`Acme` live. The services compare names as written (case and white space aside), so the
manifest's name is another object to them: the plan would create a near-duplicate beside
the live one (and, under prune, remove the live one), or a reference (a user's company)
would not find it. A reviewer reads one name in both, so the plan warns, naming the
manifest entry (its `file:line:column`) and the live object (its id).

`validate` compares the manifests' names with each other offline; this compares them with
the live names. Pure: a function of the desired and the live state.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

from reconciler.changes import Diagnostic, address, warning
from reconciler.live import LiveState
from reconciler.manifest import DesiredState
from reconciler.manifest.confusables import lookalikes
from reconciler.manifest.kinds import normalise_key, service_of
from reconciler.manifest.models import Kind
from reconciler.manifest.references import entry_keys, named_references
from reconciler.resources.asset_records import LiveAssets
from reconciler.resources.category_records import LiveCategories
from reconciler.resources.company_records import LiveCompanies
from reconciler.resources.department_records import LiveDepartments
from reconciler.resources.employee_records import LiveEmployees
from reconciler.resources.user_records import LiveUsers

_SAME = "are one name only after Unicode normalisation (NFKC) and case folding, but two to the"


def _companies(live: LiveCompanies) -> Iterable[tuple[str, object]]:
    return ((c.name, c.id) for c in live.by_key.values())


def _departments(live: LiveDepartments) -> Iterable[tuple[str, object]]:
    return ((name, ident) for ident, name in live.by_key.values())


def _categories(live: LiveCategories) -> Iterable[tuple[str, object]]:
    return ((c.name, c.id) for c in live.all())


def _users(live: LiveUsers) -> Iterable[tuple[str, object]]:
    return ((u.username, u.id) for u in live.by_key.values())


def _assets(live: LiveAssets) -> Iterable[tuple[str, object]]:
    return ((a.serial_number, a.id) for a in live.all() if a.serial_number)


def _employees(live: LiveEmployees) -> Iterable[tuple[str, object]]:
    for group in live.by_key.values():
        for record in group:
            yield str(record.get(live.key_field)), record.get("id")


# The kinds whose objects have names a manifest writes, and how to list (name, id) of
# each live object. Automation rules are keyed by id; a permission names a category.
_LIVE_NAMES: Mapping[Kind, tuple[type, Callable[[Any], Iterable[tuple[str, object]]]]] = {
    Kind.companies: (LiveCompanies, _companies),
    Kind.departments: (LiveDepartments, _departments),
    Kind.categories: (LiveCategories, _categories),
    Kind.users: (LiveUsers, _users),
    Kind.assets: (LiveAssets, _assets),
    Kind.employees: (LiveEmployees, _employees),
}


def lookalike_warnings(desired: DesiredState, live: LiveState) -> list[Diagnostic]:
    """A warning for each manifest key or reference that equals a live name of its kind
    only after `fold`, naming both; none for a name that matches a live one as the
    service compares names."""
    live_ids: dict[Kind, dict[str, object]] = {}
    found: list[Diagnostic] = []
    for kind, (live_type, names_of) in _LIVE_NAMES.items():
        data = live.kinds.get(kind.value)
        if isinstance(data, live_type):  # else not read
            ids: dict[str, object] = {}
            live_ids[kind] = ids
            for name, ident in names_of(data):
                ids.setdefault(name, ident)
            for key, live_name in lookalikes(entry_keys(desired, kind), ids):
                found.append(
                    _warning(desired, (kind, key, ()), kind, key, (live_name, ids[live_name]))
                )
    keys = {kind: _normalised_keys(desired, kind) for kind in live_ids}
    employee_key = desired.settings.employee_key
    for kind, key, path, target, name in named_references(desired):
        ids = live_ids.get(target, {})
        if not ids or normalise_key(target, name, employee_key) in keys[target]:
            continue  # not read, or an entry's key: that is checked as a key
        for _, live_name in lookalikes([name], ids):
            found.append(
                _warning(desired, (kind, key, path), target, name, (live_name, ids[live_name]))
            )
    return found


def _normalised_keys(desired: DesiredState, kind: Kind) -> set[str | None]:
    employee_key = desired.settings.employee_key
    return {normalise_key(kind, key, employee_key) for key in entry_keys(desired, kind)}


def _warning(
    desired: DesiredState,
    where: tuple[Kind, str, tuple[str | int, ...]],
    kind: Kind,
    name: str,
    live_object: tuple[str, object],
) -> Diagnostic:
    """The warning on the entry `where` (kind, key, path to the name in it): `name` of
    `kind` and the live object (name, id)."""
    entry_kind, entry_key, path = where
    live_name, ident = live_object
    outcome = "this does not refer to the live one" if path else "the plan creates a second one"
    return warning(
        f"{kind.value} '{name}' and the live '{live_name}' (id {ident}) {_SAME} "
        f"{service_of(kind)}: {outcome}",
        address(entry_kind.value, entry_key),
        remedy="write the name as the live one is written",
        location=desired.location(entry_kind, entry_key, *path),
    )
