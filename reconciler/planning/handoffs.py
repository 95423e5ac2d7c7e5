"""Values handed from one object to another (DESIGN §1, docs/renaming.md): pure.

A value the service keeps unique (a user's or an employee's e-mail address) may pass
from one object to another in one plan: alice takes bob's old address while bob gets a
new one. The two updates are right together, yet sent in the wrong order (or at once)
the service refuses alice's, and the apply stops half-way. So the change that takes a
value waits for the change that frees it (`depends_on`), and apply sends them in that
order, whatever `--parallelism`.

When the values go round (alice and bob swap addresses, or three pass them along in a
ring) no order frees one first. Rather than writing a temporary address the plan does
not show (which an apply stopped between the steps would leave behind, and the services
might mail), each change of the ring is a plan error naming the others and the way out:
two applies, the first through an address of the user's choosing. As with Terraform, an
apply does what its plan shows, and no more.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from reconciler.kinds.table import KINDS
from reconciler.manifest.desired import DesiredState
from reconciler.manifest.kinds import KindSpec, email_key
from reconciler.plans import Change, Diagnostic, error

__all__ = ["ordered_handoffs"]

_LABELS = {"email": "e-mail"}


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
    for row in KINDS:
        state = live.get(row.name)
        if state is None or not hasattr(state, "unique_values"):
            continue
        mine = [c for c in changes if c.kind == row.name and not c.removal]
        for name in row.unique:
            if name == row.key_field_for(desired.settings.employee_key):
                continue  # a key changes by rename (renames.py), never by handoff
            handoffs = _handoffs(desired, row, name, state, mine)
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


def _handoffs(
    desired: DesiredState, row: KindSpec, name: str, state: Any, changes: list[Change]
) -> list[_Handoff]:
    """Each change writing a value that another live object holds now and this plan
    changes: the value passes from that object to the change's."""
    employee_key = desired.settings.employee_key
    holder: dict[str, str] = {}  # the value's comparable form -> its live holder's key
    for normal, _shown, _ident, value in state.unique_values(name):
        text = email_key(str(value or ""))  # the unique fields are e-mail addresses
        if text:
            holder.setdefault(text, normal)
    writing: dict[str, tuple[Change, Any]] = {}  # object's key -> its change, the value
    for change in changes:
        given = next((f for f in change.fields if f.path == name), None)
        if given is not None:
            normal = row.normalise(change.key, employee_key) or change.key
            writing[normal] = (change, given.after)
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
        message,
        handoff.taker.address,
        remedy,
        desired.location(row.name, handoff.taker.key),
    )
