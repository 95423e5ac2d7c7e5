"""Values the services keep unique across a kind (DESIGN §1, docs/renaming.md): pure.

The table of kinds' `unique` names them (users' and employees' e-mail addresses; keys are
unique by construction: a key that is live is an update, and renames are checked in
renames.py). Two checks, against the whole live state (disabled users and objects the
manifests do not name included) and the plan's own creates and updates:

- Uniqueness (`uniqueness_errors`): a create or an update that would give one of those
  values to a second object fails at the API half-way through an apply, so it is a plan
  error naming both objects. When the other object is live and no entry names it
  (neither by its key nor as a former key), the create most likely is that object
  renamed: the error gives the `previously:` line that says so.
- Handoffs (`ordered_handoffs`): a value may pass from one object to another in one
  plan (alice takes bob's old address while bob gets a new one). The two updates are
  right together, yet sent in the wrong order (or at once) the service refuses alice's,
  and the apply stops half-way. So the change that takes a value waits for the change
  that frees it (`depends_on`), and apply sends them in that order, whatever
  `--parallelism`. When the values go round (a swap, or a ring of three) no order frees
  one first. Rather than writing a temporary address the plan does not show (which an
  apply stopped between the steps would leave behind, and the services might mail),
  each change of the ring is a plan error naming the others and the way out: two
  applies, the first through an address of the user's choosing. As with Terraform, an
  apply does what its plan shows, and no more.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, NamedTuple

from reconciler.kinds.table import KINDS
from reconciler.manifest.desired import DesiredState
from reconciler.manifest.kinds import KindSpec, email_key
from reconciler.manifest.references import entry_keys
from reconciler.manifest.renames import formers_of
from reconciler.planning.renames import previously_line
from reconciler.plans import Action, Change, Diagnostic, address, error

__all__ = ["ordered_handoffs", "uniqueness_errors"]

_LABELS = {"email": "e-mail"}


def _unique_fields(
    desired: DesiredState, live: Mapping[str, Any], changes: Sequence[Change]
) -> Iterator[tuple[KindSpec, str, Any, dict[str, tuple[Change, Any]]]]:
    """Each unique field of a kind read, other than its key (a key changes by rename,
    renames.py, never by handoff), with the kind's live state and the values the plan
    writes to it: normalised key of the object -> (its change, the value)."""
    employee_key = desired.settings.employee_key
    for row in KINDS:
        state = live.get(row.name)
        if state is None or not hasattr(state, "unique_values"):
            continue
        for name in row.unique:
            if name == row.key_field_for(employee_key):
                continue
            writing: dict[str, tuple[Change, Any]] = {}
            for change in changes:
                given = next((f for f in change.fields if f.path == name), None)
                if change.kind == row.name and not change.removal and given is not None:
                    normal = row.normalise(change.key, employee_key) or change.key
                    writing[normal] = (change, given.after)
            yield row, name, state, writing


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
    for row, name, state, writing in _unique_fields(desired, live, changes):
        # Who holds which value of `name` once the plan is applied.
        holders: dict[object, _Holder] = {}
        by_key: dict[str, object] = {}
        for normal, shown, ident, value in state.unique_values(name):
            holders[("live", ident)] = _Holder(shown, ident, value, False, None)
            by_key[normal] = ("live", ident)
        for normal, (change, value) in writing.items():
            owner = by_key.get(normal, ("new", normal))
            ident = holders[owner].ident if owner in holders else None
            holders[owner] = _Holder(change.key, ident, value, True, change.action)
        found += _collisions(desired, row, name, list(holders.values()))
    return found


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
            f"if it is {row.noun} '{other.key}' renamed, add `{previously_line(other.key)}` "
            f"to this entry, so that it is renamed in place (its id and history kept); "
            f"otherwise {remedy}"
        )
    return error(
        message,
        address(row.name, holder.key),
        remedy,
        desired.location(row.name, holder.key),
    )


@dataclass(frozen=True)
class _Handoff:
    taker: Change  # the change that gives its object the value
    giver: Change  # the change that takes the value from the object holding it now
    value: Any  # as the taker writes it


def ordered_handoffs(
    desired: DesiredState, live: Mapping[str, Any], changes: Sequence[Change]
) -> tuple[list[Change], list[Diagnostic]]:
    """`changes`, each that takes a unique value from another object waiting for the
    change that frees it; and an error for each change of a ring of handoffs."""
    needs: dict[str, list[str]] = {}
    found: list[Diagnostic] = []
    for row, name, state, writing in _unique_fields(desired, live, changes):
        handoffs = _handoffs(name, state, writing)
        ring = _rings(handoffs)
        for handoff in handoffs:
            if handoff.taker.address in ring:
                found.append(_ring_error(desired, row, name, handoff, ring))
            else:
                needs.setdefault(handoff.taker.address, []).append(handoff.giver.address)
    ordered = [
        replace(c, depends_on=(*c.depends_on, *needs[c.address])) if c.address in needs else c
        for c in changes
    ]
    return ordered, found


def _handoffs(name: str, state: Any, writing: dict[str, tuple[Change, Any]]) -> list[_Handoff]:
    """Each change writing a value that another live object holds now and this plan
    changes: the value passes from that object to the change's."""
    holder: dict[str, str] = {}  # the value's comparable form -> its live holder's key
    for normal, _shown, _ident, value in state.unique_values(name):
        text = email_key(str(value or ""))  # the unique fields are e-mail addresses
        if text:
            holder.setdefault(text, normal)
    found = []
    for normal, (change, value) in writing.items():
        other = holder.get(email_key(str(value or "")))
        if other is not None and other != normal and other in writing:
            found.append(_Handoff(change, writing[other][0], value))
    return found


def _rings(handoffs: list[_Handoff]) -> dict[str, list[Change]]:
    """The changes on a ring of handoffs: address -> the ring, from that change round.
    Each change takes one value, so following the givers from a change either ends or
    comes back."""
    giver = {h.taker.address: h.giver for h in handoffs}
    rings: dict[str, list[Change]] = {}
    for start in giver:
        path: list[str] = [start]
        while path[-1] in giver and giver[path[-1]].address not in path:
            path.append(giver[path[-1]].address)
        if path[-1] in giver and giver[path[-1]].address == start:
            by_address = {h.taker.address: h.taker for h in handoffs}
            rings[start] = [by_address[a] for a in path]
    return rings


def _ring_error(
    desired: DesiredState,
    row: KindSpec,
    name: str,
    handoff: _Handoff,
    rings: Mapping[str, list[Change]],
) -> Diagnostic:
    label = _LABELS.get(name, name)
    ring = rings[handoff.taker.address]
    names = [f"'{c.key}'" for c in ring]
    everyone = ", ".join(names[:-1]) + " and " + names[-1]
    how = "swap their" if len(ring) == 2 else "pass their"
    round_ = "" if len(ring) == 2 else " round"
    message = (
        f"{row.noun} '{handoff.taker.key}' would take the {label} '{handoff.value}' from "
        f"{row.noun} '{handoff.giver.key}', and {row.noun}s {everyone} {how} {label}s"
        f"{round_}: the {row.service} requires {label}s to be unique, so whichever update "
        "is sent first would be refused and the apply would stop half-way"
    )
    remedy = (
        f"apply it in two steps: first give {row.noun} '{handoff.taker.key}' a temporary "
        f"{label} that no one has, and apply; then write the {label}s wanted, and apply "
        "again"
    )
    return error(
        message, handoff.taker.address, remedy, desired.location(row.name, handoff.taker.key)
    )
