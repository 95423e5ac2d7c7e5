"""Why each change of a plan is there, told from a second plan: the manifests as of the
applied commit against the same live state. Pure: two plans' `to_dict()` forms in, a label
per change out; no I/O.

For a change of the real plan (current manifests against live) at an address:
- the applied plan has the same change: live differs from what was applied, and the
  manifests did not change there since: `drift` (a hand change);
- the applied plan has no change there: live is as applied, the manifests changed since:
  `pending` (merged, not applied yet);
- the applied plan changes the object differently: both, `drift+pending`.

Changes are compared on what they do (action, rename, each field's before and after),
with deepdiff for the nested values (custom fields, lists of domains and technicians);
what only describes them (the manifest line, the reason, the operations built from the
same values) is left out, since it differs between the two checkouts.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from enum import StrEnum
from typing import Any


class Cause(StrEnum):
    drift = "drift"
    pending = "pending"
    both = "drift+pending"


class FailOn(StrEnum):
    """`--fail-on`: which changes make `--detailed-exitcode` exit 2."""

    any = "any"
    drift = "drift"
    pending = "pending"


_COUNTED = {
    FailOn.drift: frozenset({Cause.drift, Cause.both}),
    FailOn.pending: frozenset({Cause.pending, Cause.both}),
}


def label(real: Mapping[str, Any], applied: Mapping[str, Any]) -> dict[str, Cause]:
    """A cause for every change of `real`, by address; both are `Plan.to_dict()` forms."""
    by_object = {_object(change): change for change in applied.get("changes", ())}
    causes: dict[str, Cause] = {}
    for change in real.get("changes", ()):
        twin = by_object.get(_object(change))
        if twin is None and change.get("renamed_from") is not None:
            # A rename since the applied commit: the applied plan knows the old key.
            twin = by_object.get((change["kind"], change["renamed_from"]))
        if twin is None:
            causes[change["address"]] = Cause.pending
        elif _same(change, twin):
            causes[change["address"]] = Cause.drift
        else:
            causes[change["address"]] = Cause.both
    return causes


def _object(change: Mapping[str, Any]) -> tuple[str, str]:
    return (change["kind"], change["key"])


def _effect(change: Mapping[str, Any]) -> dict[str, Any]:
    """What a change does, with its fields by path (their order says nothing)."""
    return {
        "action": change.get("action"),
        "renamed_from": change.get("renamed_from"),
        "fields": {
            field["path"]: (field.get("before"), field.get("after"))
            for field in change.get("fields", ())
        },
    }


def _same(change: Mapping[str, Any], twin: Mapping[str, Any]) -> bool:
    # Imported here: deepdiff takes over half a second to import, and only a plan with an
    # applied mark needs it.
    from deepdiff import DeepDiff

    return not DeepDiff(_effect(twin), _effect(change))


def fails(
    addresses: Iterable[str], causes: Mapping[str, Cause] | None, fail_on: FailOn | str
) -> bool:
    """Whether the changes at `addresses` make `--detailed-exitcode` exit 2 under
    `--fail-on`: `any` counts every change; `drift` those labelled drift or
    drift+pending; `pending` likewise. A change without a label (no mark, or labels
    omitted) counts for every value: nothing is known about it."""
    wanted = _COUNTED.get(FailOn(fail_on))
    for address in addresses:
        cause = None if causes is None else causes.get(address)
        if wanted is None or cause is None or cause in wanted:
            return True
    return False


def counts_line(causes: Mapping[str, Cause]) -> str | None:
    """`Causes: 2 drift, 3 pending.` (causes with no change left out, the others in the
    order drift, pending, drift+pending); None when empty."""
    counts = Counter(causes.values())
    shown = [f"{counts[cause]:,} {cause.value}" for cause in Cause if counts[cause]]
    return f"Causes: {', '.join(shown)}." if shown else None
