"""Custom fields the helpdesk does not define at all (DESIGN §1): pure.

Against a helpdesk with no custom fields of a kind (a new one, or the sandbox's `empty`
seed) every value the manifests set is an error, one per object and field: hundreds of
lines that each say the same. They are told once per kind instead, at the first value,
with the fields to create; an object naming a field when others exist keeps its own error
with the closest names (custom_fields.py).
"""

from __future__ import annotations

import ast
from collections.abc import Mapping, Sequence
from typing import Any

from reconciler.kinds.custom_fields.planner import unknown_message
from reconciler.kinds.custom_fields.reader import KIND, USAGE, CustomFieldCatalogue
from reconciler.kinds.table import BY_NAME
from reconciler.manifest.kinds import norm_key
from reconciler.plans import Diagnostic, error
from reconciler.plans.addresses import split_address

__all__ = ["told_once"]


def told_once(diagnostics: Sequence[Diagnostic], live: Mapping[str, Any]) -> list[Diagnostic]:
    """`diagnostics`, the errors of fields a kind without any defined replaced by one per
    kind, where the first of them was."""
    catalogue = live.get(KIND)
    if not isinstance(catalogue, CustomFieldCatalogue):
        return list(diagnostics)
    bare = {kind for kind, usage in USAGE.items() if not catalogue.by_usage.get(usage)}
    missing: dict[str, dict[str, int]] = {}  # kind -> field -> how many values
    out: list[Diagnostic] = []
    first: dict[str, int] = {}  # kind -> where its one error goes in `out`
    spellings: dict[str, str] = {}  # a field's normalised name -> its first spelling
    for found in diagnostics:
        kind, _ = split_address(found.address or "")
        name = _field(found) if kind in bare else None
        if name is None:
            out.append(found)
            continue
        fields = missing.setdefault(kind, {})
        spelt = spellings.setdefault(norm_key(name), name)  # as the catalogue compares
        fields[spelt] = fields.get(spelt, 0) + 1
        if kind not in first:
            first[kind] = len(out)
            out.append(found)  # replaced below, once every value is counted
    for kind, at in first.items():
        out[at] = _told(kind, missing[kind], out[at].location)
    return out


def _field(found: Diagnostic) -> str | None:
    """The field an unknown-field error names, or None for any other diagnostic."""
    if found.severity != "error" or found.remedy is not None:
        return None
    text = found.message
    quoted = text.removeprefix("custom field ").removesuffix(" does not exist")
    try:
        name = ast.literal_eval(quoted)  # the name as repr() wrote it
    except (ValueError, SyntaxError):
        return None
    return name if isinstance(name, str) and text == unknown_message(name) else None


def _told(kind: str, fields: Mapping[str, int], location: str | None) -> Diagnostic:
    row = BY_NAME[kind]
    values = sum(fields.values())
    names = ", ".join(repr(name) for name in fields)
    return error(
        f"the {row.service} defines no custom fields of {kind}, and the manifests set "
        f"{values} value(s) of {len(fields)} field(s): {names}",
        kind,
        f"create these custom fields of {kind} in the {row.service} (its settings), then "
        "plan again; or remove the values from the manifests",
        location,
    )
