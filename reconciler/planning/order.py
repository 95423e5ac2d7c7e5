"""Dependency order of changes (graphlib): what a change depends on (explicitly, or by
using the id of an object another change creates) is applied first; ties are broken by
the kinds' natural order and then by key, so a plan reads the same every time. Removals
come after everything else, in reverse order (permissions before the users they name)."""

from __future__ import annotations

import heapq
from collections.abc import Iterable, Sequence
from graphlib import CycleError, TopologicalSorter

from reconciler.kinds.table import KIND_NAMES
from reconciler.plans import Change

# The kinds' natural order: that of the table of kinds.
KIND_ORDER: tuple[str, ...] = KIND_NAMES


def _rank(change: Change) -> tuple[int, str]:
    kind = KIND_ORDER.index(change.kind) if change.kind in KIND_ORDER else len(KIND_ORDER)
    return kind, change.key.casefold()


def dependencies(change: Change) -> set[str]:
    deps = set(change.depends_on)
    for operation in change.operations:
        deps.update(ref.address for ref in operation.refs)
    deps.discard(change.address)
    return deps


def order_changes(changes: Iterable[Change]) -> list[Change]:
    """Raises graphlib.CycleError (with the cycle's addresses) when there is one."""
    changes = list(changes)
    forward = [c for c in changes if not c.removal]
    removals = [c for c in changes if c.removal]
    by_address = {c.address: c for c in forward}
    sorter: TopologicalSorter[str] = TopologicalSorter()
    for change in forward:
        sorter.add(change.address, *(d for d in dependencies(change) if d in by_address))
    # Kahn's algorithm with a heap of ready changes: the natural kind order wherever the
    # dependencies allow it, rather than in rounds (a user waiting for its company would
    # otherwise land after every kind of the first round).
    ordered: list[Change] = []
    sorter.prepare()
    ready: list[tuple[tuple[int, str], str]] = []
    while sorter.is_active():
        for found in sorter.get_ready():
            heapq.heappush(ready, (_rank(by_address[found]), found))
        _, chosen = heapq.heappop(ready)
        ordered.append(by_address[chosen])
        sorter.done(chosen)
    removals.sort(key=lambda c: (-_rank(c)[0], _rank(c)[1]))
    return ordered + removals


def with_dependencies(changes: Sequence[Change], selected: set[str]) -> list[Change]:
    """The selected changes plus every change they need (like Terraform's -target)."""
    by_address = {c.address: c for c in changes}
    keep: set[str] = set()
    stack = [a for a in selected if a in by_address]
    while stack:
        current = stack.pop()
        if current in keep:
            continue
        keep.add(current)
        stack.extend(d for d in dependencies(by_address[current]) if d in by_address)
    return [c for c in changes if c.address in keep]


def without_dependents(changes: Sequence[Change], excluded: set[str]) -> dict[str, str]:
    """The changes that need an excluded one, directly or through another: address -> the
    address it needs that is left out (the first, by address). Like Terraform's
    -exclude: a change whose dependency is not applied could not be applied either."""
    left_out = set(excluded)
    needs: dict[str, str] = {}
    found = True
    while found:  # until no change needs one left out; the order may hold a cycle
        found = False
        for change in changes:
            if change.address in left_out:
                continue
            missing = sorted(d for d in dependencies(change) if d in left_out)
            if missing:
                needs[change.address] = missing[0]
                left_out.add(change.address)
                found = True
    return needs


__all__ = [
    "KIND_ORDER",
    "CycleError",
    "dependencies",
    "order_changes",
    "with_dependencies",
    "without_dependents",
]
