"""Renames keep identity (DESIGN §1, docs/renaming.md): pure, before the kinds are diffed.

An entry whose key is not live while exactly one of its former keys (`previously:`) is,
stands for that live object. `find_renames` decides it per entry:
- key live, a former key live too: an error naming both objects (two objects, one entry);
- key live, no former key live: the rename is done; a note lists the former keys that
  match nothing, so that they can be removed;
- key not live, one former key live: a `Rename`;
- key not live, several former keys live: an error naming them;
- neither live: a plain create (nothing to say).

`with_renames` gives the live state as the planners should see it: each renamed object
found under its new key, and the live objects that name it by its old name (a user's
company) naming it anew, through each live state's `renamed(kind, old, new)`. Each
renamable kind's planner then sees an update whose key field changes (the record sent
carries the new key), and the references, compared by id or by the new name, follow
without a change of their own. `mark_renames` labels those updates (`renamed_from`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from typing import Any

from reconciler.kinds.table import BY_NAME, KINDS, references_to
from reconciler.manifest.desired import DesiredState
from reconciler.manifest.kinds import KindSpec
from reconciler.manifest.renames import Formers, formers_of, live_match
from reconciler.plans import Change, Diagnostic, address, error, note

__all__ = ["Rename", "find_renames", "mark_renames", "with_renames"]


@dataclass(frozen=True)
class Rename:
    kind: str
    key: str  # the entry's key as written
    normal: str  # normalised
    former: str  # the live object's key, as live
    former_normal: str


def _shown(live: Any, row: KindSpec, employee_key: str) -> dict[str, tuple[str, object]]:
    """Normalised key -> (key as live, id) of the live objects of `row`'s kind."""
    found: dict[str, tuple[str, object]] = {}
    for name, ident in live.named_ids() if hasattr(live, "named_ids") else ():
        normal = row.normalise(name, employee_key)
        if normal is not None:
            found.setdefault(normal, (name, ident))
    return found


def find_renames(
    desired: DesiredState, live: Mapping[str, Any]
) -> tuple[list[Rename], list[Diagnostic]]:
    renames: list[Rename] = []
    diagnostics: list[Diagnostic] = []
    employee_key = desired.settings.employee_key
    for row in KINDS:
        state = live.get(row.name)
        entries = formers_of(desired, row)
        if state is None or not entries:
            continue
        shown = _shown(state, row, employee_key)
        keys = state.keys()
        for entry in entries:
            found = live_match(entry, keys)
            if entry.normal in keys:
                diagnostics += _already_live(desired, row, entry, found, shown)
            elif len(found) == 1:
                former = shown.get(found[0], (found[0], None))[0]
                renames.append(Rename(row.name, entry.key, entry.normal, former, found[0]))
            elif found:
                diagnostics.append(_ambiguous(desired, row, entry, found, shown))
    return renames, diagnostics


def _object(row: KindSpec, shown: Mapping[str, tuple[str, object]], normal: str) -> str:
    name, ident = shown.get(normal, (normal, None))
    return f"{row.noun} '{name}' (id {ident})"


def _already_live(
    desired: DesiredState,
    row: KindSpec,
    entry: Formers,
    found: list[str],
    shown: Mapping[str, tuple[str, object]],
) -> list[Diagnostic]:
    addr, where = address(row.name, entry.key), desired.location(row.name, entry.key)
    if not found:
        return [
            note(
                f"former keys {', '.join(entry.written)} match no live {row.noun}: the rename "
                "is done, and `previously:` can be removed",
                addr,
                location=where,
            )
        ]
    others = " and ".join(_object(row, shown, n) for n in found)
    return [
        error(
            f"both this {row.noun}, {_object(row, shown, entry.normal)}, and its former "
            f"{others} are live, so the entry cannot tell which one it is",
            addr,
            "remove the former key from `previously:` to keep both as they are, or remove "
            f"(or rename) one of them in the {row.service} first, then plan again",
            where,
        )
    ]


def _ambiguous(
    desired: DesiredState,
    row: KindSpec,
    entry: Formers,
    found: list[str],
    shown: Mapping[str, tuple[str, object]],
) -> Diagnostic:
    objects = " and ".join(_object(row, shown, n) for n in found)
    return error(
        f"several former keys are live ({objects}): one entry can rename only one of them",
        address(row.name, entry.key),
        "keep in `previously:` only the key of the object to rename",
        desired.location(row.name, entry.key),
    )


def with_renames(live: Mapping[str, Any], renames: Iterable[Rename]) -> dict[str, Any]:
    """The live state as if each renamed object already had its new key (see above)."""
    kinds = dict(live)
    for rename in renames:
        for name, state in kinds.items():
            if hasattr(state, "renamed"):
                kinds[name] = state.renamed(
                    rename.kind, rename.former_normal, rename.normal, rename.key
                )
    return kinds


def mark_renames(
    changes: Iterable[Change], renames: Iterable[Rename], employee_key: str
) -> list[Change]:
    """The updates of renamed objects, labelled with their former key; and the changes
    that send a renamed object's new name (a user's record names its company) made to
    wait for the rename: applied concurrently, the service could create a second object
    of that name first."""
    renames = list(renames)
    former = {(r.kind, r.normal): r.former for r in renames}
    out = []
    for change in changes:
        row = BY_NAME.get(change.kind)
        normal = row.normalise(change.key, employee_key) if row is not None else None
        was = former.get((change.kind, normal or ""))
        if was and not change.removal:
            change = replace(change, renamed_from=was)
        needs = tuple(_sent_names(change, renames))
        if needs:
            change = replace(change, depends_on=(*change.depends_on, *needs))
        out.append(change)
    return out


def _sent_names(change: Change, renames: list[Rename]) -> Iterable[str]:
    """The addresses of the renames whose new name `change` sends, where its kind refers
    to the renamed kind (the table of kinds' references)."""
    for rename in renames:
        referring = {row.name for row, _ in references_to(rename.kind)}
        if change.kind not in referring or change.removal:
            continue
        row = BY_NAME[rename.kind]
        sent = (
            row.normalise(value) == rename.normal
            for operation in change.operations
            for value in operation.params.values()
            if isinstance(value, str)
        )
        if any(sent):
            yield address(rename.kind, rename.key)
