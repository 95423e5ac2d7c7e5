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

from collections.abc import Iterable
from typing import Any, cast

from reconciler.changes import Diagnostic, address, warning
from reconciler.live import LiveState
from reconciler.manifest import DesiredState
from reconciler.manifest.confusables import lookalikes
from reconciler.manifest.kinds import normalise_key, service_of
from reconciler.manifest.models import Kind
from reconciler.manifest.references import entry_keys, named_references

_SAME = "are one name only after Unicode normalisation (NFKC) and case folding, but two to the"


def _named_ids(data: Any) -> Iterable[tuple[str, object]] | None:
    """(name, id) of each live object of a kind whose objects have names a manifest
    writes (its live state's `named_ids`); None for the others (automation rules are keyed
    by id, a permission names a category) and for a kind not read."""
    named_ids = getattr(data, "named_ids", None)
    return None if named_ids is None else cast(Iterable[tuple[str, object]], named_ids())


def lookalike_warnings(desired: DesiredState, live: LiveState) -> list[Diagnostic]:
    """A warning for each manifest key or reference that equals a live name of its kind
    only after `fold`, naming both; none for a name that matches a live one as the
    service compares names."""
    live_ids: dict[Kind, dict[str, object]] = {}
    found: list[Diagnostic] = []
    for kind in Kind:
        named = _named_ids(live.kinds.get(kind.value))
        if named is not None:
            ids: dict[str, object] = {}
            live_ids[kind] = ids
            for name, ident in named:
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
