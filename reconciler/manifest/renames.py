"""Former keys (`previously:`), the manifests' side (docs/renaming.md).

An entry of a kind whose row in the table of kinds says `renamable` may list the keys it
had before. Offline, the former keys must point at one entry each and never at another
entry's key: that refuses a key claimed twice, a chain (A was B while B was C) and a swap
(A was B while B was A), which one plan cannot apply in a single step. Against the live
state (`live_match`), an entry whose key is not live stands for the one live object one
of its former keys names; the planner (planning/renames.py) decides the rest.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass
from typing import TypeVar

from reconciler.kinds.table import KINDS
from reconciler.manifest.desired import DesiredState
from reconciler.manifest.kinds import KindSpec
from reconciler.manifest.models import PREVIOUSLY, Kind
from reconciler.manifest.references import entry_keys, keyed_entries

T = TypeVar("T")

__all__ = ["Formers", "formers_of", "live_match", "live_value", "rename_conflicts"]


@dataclass(frozen=True)
class Formers:
    """One entry's former keys: as written, and normalised (the kind's key form)."""

    key: str  # the entry's key as written
    normal: str  # the entry's key normalised
    written: tuple[str, ...]
    normals: tuple[str | None, ...]  # None: not a key of this kind


def formers_of(desired: DesiredState, row: KindSpec) -> list[Formers]:
    """The entries of `row`'s kind that list former keys, in the order written."""
    if not row.renamable:
        return []
    employee_key = desired.settings.employee_key
    found = []
    for key, entry in keyed_entries(desired, row.kind):
        written = tuple(getattr(entry, PREVIOUSLY) or ())
        normal = row.normalise(key, employee_key)
        if written and normal is not None:
            normals = tuple(row.normalise(w, employee_key) for w in written)
            found.append(Formers(key.strip(), normal, written, normals))
    return found


def rename_conflicts(desired: DesiredState) -> list[tuple[Kind, str, int, str]]:
    """(kind, entry key, index in `previously`, message) of each former key that another
    entry claims too or that is another entry's key."""
    found = []
    for row in KINDS:
        entries = formers_of(desired, row)
        if not entries:
            continue
        employee_key = desired.settings.employee_key
        keys = {row.normalise(k, employee_key): k for k in entry_keys(desired, row.kind)}
        claimed: dict[str, str] = {}
        for entry in entries:
            for index, (written, normal) in enumerate(
                zip(entry.written, entry.normals, strict=True)
            ):
                if normal is None:
                    continue
                message = _conflict(row, entry, written, normal, keys, claimed)
                if message:
                    found.append((row.kind, entry.key, index, message))
                claimed.setdefault(normal, entry.key)
    return found


def _conflict(
    row: KindSpec,
    entry: Formers,
    written: str,
    normal: str,
    keys: Mapping[str | None, str],
    claimed: Mapping[str, str],
) -> str:
    noun = row.noun
    if normal == entry.normal:
        return f"former key '{written}' is this {noun}'s own key"
    if normal in keys:
        return (
            f"former key '{written}' is the key of another entry ({noun} '{keys[normal]}'): "
            "a chain or a swap of keys cannot be applied in one plan; rename one step at a "
            "time (docs/renaming.md)"
        )
    earlier = claimed.get(normal)
    if earlier is not None and earlier != entry.key:
        return (
            f"former key '{written}' is also listed under {noun} '{earlier}': one live "
            f"{noun} cannot become two; keep it under one entry"
        )
    return ""


def live_match(entry: Formers, keys: Collection[str]) -> list[str]:
    """The normalised former keys of `entry` that are live (in `keys`), in the order
    written, each once."""
    return list(dict.fromkeys(n for n in entry.normals if n is not None and n in keys))


def live_value(
    desired: DesiredState,
    row: KindSpec,
    key: str,
    live: Mapping[str, T],
    formers: list[Formers],
) -> T | None:
    """What a reader looks at for the entry keyed `key`: the live object of that key, else
    the one live object its former keys name (None: neither, or several). `formers`:
    `formers_of(desired, row)`, found once by the reader for every entry, not per entry."""
    normal = row.normalise(key, desired.settings.employee_key)
    if normal is None:
        return None
    if normal in live:
        return live[normal]
    for entry in formers:
        if entry.normal == normal:
            matched = live_match(entry, live.keys())
            return live[matched[0]] if len(matched) == 1 else None
    return None
