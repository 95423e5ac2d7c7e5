"""Uniqueness before any write (DESIGN §1, docs/renaming.md): pure.

The services keep some fields unique across a kind (the table of kinds' `unique`: users'
and employees' e-mail addresses; keys are unique by construction: a key that is live is
an update, and renames are checked in renames.py). A create or an update that would give
one of those values to a second object fails at the API half-way through an apply, so it
is found here, against the whole live state (disabled users and objects the manifests do
not name included) and the plan's own creates and updates, and reported as a plan error
naming both objects. When the other object is live and no entry names it (neither by its
key nor as a former key), the create most likely is that object renamed: the error gives
the `previously:` line that says so.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple

from reconciler.kinds.table import KINDS
from reconciler.manifest.desired import DesiredState
from reconciler.manifest.kinds import KindSpec, email_key
from reconciler.manifest.models import PREVIOUSLY
from reconciler.manifest.references import entry_keys
from reconciler.manifest.renames import formers_of
from reconciler.plans import Action, Change, Diagnostic, address, error

__all__ = ["uniqueness_errors"]

_LABELS = {"email": "e-mail"}


class _Holder(NamedTuple):
    key: str  # as live, or as the plan writes it
    ident: object  # the live id; None for a create
    value: Any
    planned: bool  # the value comes from this plan
    action: Action | None


def uniqueness_errors(
    desired: DesiredState, live: Mapping[str, Any], changes: Sequence[Change]
) -> list[Diagnostic]:
    found: list[Diagnostic] = []
    employee_key = desired.settings.employee_key
    for row in KINDS:
        state = live.get(row.name)
        if state is None or not hasattr(state, "unique_values"):
            continue
        mine = [c for c in changes if c.kind == row.name and not c.removal]
        for name in row.unique:
            if name != row.key_field_for(employee_key):
                holders = _final(row, name, state, mine, employee_key)
                found += _collisions(desired, row, name, holders)
    return found


def _final(
    row: KindSpec, name: str, state: Any, changes: list[Change], employee_key: str
) -> list[_Holder]:
    """Who holds which value of `name` once the plan is applied."""
    holders: dict[object, _Holder] = {}
    by_key: dict[str, object] = {}
    for normal, shown, ident, value in state.unique_values(name):
        holders[("live", ident)] = _Holder(shown, ident, value, False, None)
        by_key[normal] = ("live", ident)
    for change in changes:
        given = next((f for f in change.fields if f.path == name), None)
        if given is None:
            continue
        normal = row.normalise(change.key, employee_key) or change.key
        owner = by_key.get(normal, ("new", normal))
        ident = holders[owner].ident if owner in holders else None
        holders[owner] = _Holder(change.key, ident, given.after, True, change.action)
    return list(holders.values())


def _collisions(
    desired: DesiredState, row: KindSpec, name: str, holders: list[_Holder]
) -> list[Diagnostic]:
    groups: dict[str, list[_Holder]] = {}
    for holder in holders:
        text = email_key(str(holder.value or ""))  # the unique fields are e-mail addresses
        if text:
            groups.setdefault(text, []).append(holder)
    named = _named(desired, row)
    found = []
    for group in groups.values():
        for holder in (h for h in group if h.planned):
            others = [h for h in group if h is not holder]
            if others:
                found.append(_collision(desired, row, name, holder, others[0], named))
    return found


def _named(desired: DesiredState, row: KindSpec) -> set[str]:
    """The normalised keys the manifests name: entries' keys and former keys."""
    employee_key = desired.settings.employee_key
    keys = {row.normalise(k, employee_key) for k in entry_keys(desired, row.kind)}
    for entry in formers_of(desired, row):
        keys.update(entry.normals)
    return {k for k in keys if k is not None}


def _collision(
    desired: DesiredState,
    row: KindSpec,
    name: str,
    holder: _Holder,
    other: _Holder,
    named: set[str],
) -> Diagnostic:
    label = _LABELS.get(name, name)
    doing = "created" if holder.action is Action.create else "updated"
    if other.planned:
        also = "created" if other.ident is None else "updated"
        whose = f"{row.noun} '{other.key}', also {also} by this plan,"
    else:
        whose = f"live {row.noun} '{other.key}' (id {other.ident})"
    message = (
        f"{row.noun} '{holder.key}' ({doing} by this plan) would have the {label} "
        f"'{holder.value}', which {whose} has: the {row.service} requires {label}s to be "
        "unique, and the call would fail half-way through the apply"
    )
    remedy = f"give one of them another {label}"
    employee_key = desired.settings.employee_key
    unnamed = row.normalise(other.key, employee_key) not in named
    if holder.action is Action.create and not other.planned and unnamed and row.renamable:
        remedy = (
            f"if it is {row.noun} '{other.key}' renamed, add `{PREVIOUSLY}: [{other.key}]` "
            f"to this entry, so that it is renamed in place (its id and history kept); "
            f"otherwise {remedy}"
        )
    return error(
        message,
        address(row.name, holder.key),
        remedy,
        desired.location(row.name, holder.key),
    )
