"""Renames nobody declared (DESIGN §9, docs/renaming.md): pure, after the kinds are diffed.

A create whose entry shares a telling value with a live object of its kind that no entry
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

from reconciler.kinds.table import BY_NAME
from reconciler.manifest.desired import DesiredState
from reconciler.manifest.kinds import KindSpec, email_key
from reconciler.manifest.models import PREVIOUSLY
from reconciler.manifest.references import keyed_entries
from reconciler.manifest.renames import formers_of
from reconciler.plans import Action, Change, RenameHint

__all__ = ["compact", "previously_line", "rename_hints"]

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
