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

Renames nobody declared (DESIGN §9), after the kinds are diffed (`rename_hints`): a
create whose entry shares a telling value with a live object of its kind that no entry
names (neither by its key nor as a former key) most likely is that object renamed with
its `previously:` forgotten: applied as planned, the old object stays beside a new one
(and, under prune, is removed), its id and history lost. The table of kinds says which
value tells (`renamed_if`): a company's e-mail domains (one shared is enough: a domain
belongs to one company), a user's e-mail address, an asset's serial number written with
other case, spacing or separators (`PF4KX2A2-R` and `PF4KX2A2 R`; the key compares case
and spacing away already, so only the separators are left to tell them apart).

The create is labelled with each look-alike and the `previously:` line that makes it a
rename (`Change.rename_hints`). Advice only: the plan still creates, and apply does what
the plan says. Only live objects in scope are compared (a live state holds no other).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from reconciler.kinds.table import BY_NAME, KINDS, references_to
from reconciler.manifest.desired import DesiredState
from reconciler.manifest.kinds import KindSpec, email_key
from reconciler.manifest.models import PREVIOUSLY
from reconciler.manifest.references import keyed_entries
from reconciler.manifest.renames import Formers, formers_of, live_match
from reconciler.plans import Action, Change, Diagnostic, RenameHint, address, error, note

__all__ = [
    "Rename",
    "compact",
    "find_renames",
    "mark_renames",
    "previously_line",
    "rename_hints",
    "with_renames",
]


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
    former: dict[tuple[str, str | None], str] = {(r.kind, r.normal): r.former for r in renames}
    out = []
    for change in changes:
        normal = BY_NAME[change.kind].normalise(change.key, employee_key)
        # A removal's key is live and a rename's is not (that would be `_already_live`),
        # but a removal is never labelled a rename, whatever the keys.
        was = None if change.removal else former.get((change.kind, normal))
        if was:
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


# A key that YAML reads back as the same text inside `[...]` without quotes.
_PLAIN = re.compile(r"[A-Za-z][A-Za-z0-9._@/+-]*(?: [A-Za-z0-9._@/+-]+)*")
_YAML_WORDS = {"null", "true", "false", "yes", "no", "on", "off", "y", "n"}


@dataclass(frozen=True)
class _Live:
    key: str  # as live
    ident: object
    signs: dict[str, str]  # compared form -> the value as live
    order: int  # its place in the live listing


def compact(text: str) -> str:
    """A serial number without case, spacing or separators: only its letters and digits."""
    return "".join(char for char in text.casefold() if char.isalnum())


def previously_line(key: str) -> str:
    """`previously: [KEY]`, quoted where YAML would read the key otherwise."""
    plain = _PLAIN.fullmatch(key) and key.casefold() not in _YAML_WORDS
    return f"{PREVIOUSLY}: [{key if plain else json.dumps(key, ensure_ascii=False)}]"


def rename_hints(
    desired: DesiredState, live: Mapping[str, Any], changes: Sequence[Change]
) -> list[Change]:
    """`changes`, each create of a kind with a `renamed_if` value labelled with the
    unlisted live objects that share it."""
    unlisted: dict[str, dict[str, list[_Live]]] = {}
    entries: dict[str, dict[str, Any]] = {}
    out = []
    for change in changes:
        row = BY_NAME.get(change.kind)
        state = live.get(change.kind)
        if change.action is not Action.create or row is None or not row.renamed_if or not state:
            out.append(change)
            continue
        if row.name not in unlisted:
            unlisted[row.name] = _unlisted(desired, row, state)
            entries[row.name] = _entries(desired, row)
        entry = entries[row.name].get(_normal(desired, row, change.key) or "")
        hints = tuple(_hints(row, _signs(row, entry), unlisted[row.name]))
        out.append(replace(change, rename_hints=hints) if hints else change)
    return out


def _normal(desired: DesiredState, row: KindSpec, key: str) -> str | None:
    return row.normalise(key, desired.settings.employee_key)


def _entries(desired: DesiredState, row: KindSpec) -> dict[str, Any]:
    found = ((_normal(desired, row, key), entry) for key, entry in keyed_entries(desired, row.kind))
    return {normal: entry for normal, entry in found if normal is not None}


def _form(row: KindSpec) -> Any:
    """How the kind's telling values compare: the key field without its separators, an
    address or a domain without case."""
    return compact if row.renamed_if == row.key_field else email_key


def _signs(row: KindSpec, entry: Any) -> dict[str, str]:
    """The entry's telling values: compared form -> value as written."""
    value = getattr(entry, row.renamed_if, None)
    values: Iterable[Any] = value if isinstance(value, list | tuple) else [value]
    form = _form(row)
    return {form(str(v)): str(v) for v in values if v is not None and form(str(v))}


def _unlisted(desired: DesiredState, row: KindSpec, state: Any) -> dict[str, list[_Live]]:
    """The live objects of `row`'s kind that no entry names, by each of their telling
    values (compared form): a create looks up its own values, never every object (a
    first plan may create thousands beside thousands of unlisted objects)."""
    named = {_normal(desired, row, key) for key, _ in keyed_entries(desired, row.kind)}
    for entry in formers_of(desired, row):
        named.update(entry.normals)
    if row.renamed_if == row.key_field:
        found = ((row.normalise(k), k, ident, k) for k, ident in state.named_ids())
    else:
        found = state.field_values(row.renamed_if)
    index: dict[str, list[_Live]] = {}
    for order, (normal, key, ident, value) in enumerate(found):
        if normal in named:
            continue
        values = value if isinstance(value, list | tuple) else [value]
        signs = {_form(row)(str(v)): str(v) for v in values if v}
        live = _Live(str(key), ident, {k: v for k, v in signs.items() if k}, order)
        for sign in live.signs:
            index.setdefault(sign, []).append(live)
    return index


def _hints(
    row: KindSpec, signs: Mapping[str, str], index: Mapping[str, list[_Live]]
) -> Iterable[RenameHint]:
    """One hint per unlisted object sharing one of `signs`, in the live listing's order."""
    found = {live.order: live for sign in signs for live in index.get(sign, ())}
    for _, live in sorted(found.items()):
        shared = [live.signs[sign] for sign in signs if sign in live.signs]
        line = previously_line(live.key)
        yield RenameHint(live.key, live.ident, _reason(row, live, shared), line)


def _reason(row: KindSpec, found: _Live, shared: list[str]) -> str:
    """`looks like the unlisted company 'Acme' (id 3) renamed: both have ...`."""
    noun = row.renamed_if.removesuffix("s").replace("_", " ").replace("email", "e-mail")
    if row.renamed_if == row.key_field:
        why = f"the {noun}s differ only in case, spacing or separators"
    else:
        plural = "s" if len(shared) > 1 else ""
        why = f"both have the {noun}{plural} {', '.join(shared)}"
    return f"looks like the unlisted {row.noun} '{found.key}' (id {found.ident}) renamed: {why}"
