"""Custom fields in a seed: their definitions (`custom_fields`) and the values that users,
companies and assets give them (their own `custom_fields` mappings)."""

from __future__ import annotations

from typing import Any

from reconciler.sandbox import records
from reconciler.sandbox.errors import HttpError
from reconciler.sandbox.helpdesk.custom_fields import DROPDOWN, USAGE_NAMES, validate_value
from reconciler.sandbox.seed.checker import Checker
from reconciler.sandbox.seed.entry import Entry, items, key, scalar_text
from reconciler.sandbox.seed.plan import Custom, Option, PlannedField
from reconciler.sandbox.seed.reading import SeedNode
from reconciler.sandbox.store import Record

FIELD_FIELDS = "name type usage mandatory for_techs_only options"


def check_custom_fields(c: Checker, node: SeedNode | None) -> None:
    pending: list[tuple[PlannedField, list[Option]]] = []
    for entry in c.entries(node, "custom_fields", "a custom field", FIELD_FIELDS):
        name = entry.text("name", required=True)
        kind = records.FIELD_TYPES[entry.choice("type", records.FIELD_TYPES, "text") or "text"]
        if entry.get("usage") is None:
            entry.missing("usage")
        usage_name = entry.choice("usage", records.USAGE_TYPES, "")
        if not usage_name:
            name = None  # no usage to register it under: reported already
        usage = records.USAGE_TYPES.get(usage_name or "", records.USAGE_TYPES["tickets"])
        kwargs: dict[str, Any] = {
            "name": name,
            "type": kind,
            "usage_type": usage,
            "mandatory": entry.flag("mandatory", False),
            "for_techs_only": entry.flag("for_techs_only", False),
        }
        options = _options(c, entry, kind)
        what = f"{USAGE_NAMES[usage]} custom field"
        if c.put_new(c.field_names[usage], name, len(c.plan.fields), entry.node, what):
            c.plan.fields.append(PlannedField(kwargs))
            pending.append((c.plan.fields[-1], options))
    _number_options(c, pending)


def _options(c: Checker, entry: Entry, kind: int) -> list[Option]:
    node = entry.get("options")
    if node is not None and kind != DROPDOWN:
        c.p.add(node, "only dropdown fields have 'options'")
        return []
    out: list[Option] = []
    seen: dict[str, SeedNode] = {}
    for item in items(node, c.p, "'options'"):
        option_id, name = None, scalar_text(item)
        if isinstance(item.value, dict):
            sub = Entry(item, c.p, "an option", "id name")
            option_id, name = sub.integer("id", minimum=1), sub.text("name", required=True)
            if name is None:
                continue
        if not name or not name.strip():
            c.p.add(item, "each option must be a name or {id: ..., name: ...}")
        elif c.put_new(seen, name.strip(), item, item, "option"):
            out.append((option_id, name.strip(), item))
    return out


def _number_options(c: Checker, pending: list[tuple[PlannedField, list[Option]]]) -> None:
    """Option ids are global: fixed ones are kept, the others numbered from 1 around
    them in file order, so the same seed always gives the same ids."""
    fixed: set[int] = set()
    for _, options in pending:
        for option_id, _, node in options:
            if option_id is not None and option_id in fixed:
                c.p.add(node, f"duplicate option id {option_id}")
            fixed.add(option_id or 0)
    next_id = 1
    for spec, options in pending:
        numbered: list[Record] = []
        for option_id, name, _ in options:
            if option_id is None:
                while next_id in fixed:
                    next_id += 1
                option_id, next_id = next_id, next_id + 1
            numbered.append({"id": option_id, "name": name})
        spec.kwargs["options"] = numbered
        spec.record = records.custom_field(**spec.kwargs)


def custom_values(c: Checker, node: SeedNode | None, usage: int) -> Custom:
    """`custom_fields: {field name: value}` of one user, company or asset."""
    if node is None:
        return {}
    if not isinstance(node.value, dict):
        c.p.add(node, "'custom_fields' must map field names to values")
        return {}
    out: Custom = {}
    for name, value in node.value.items():
        index = c.field_names[usage].get(key(name))
        if index is None:
            c.p.add(node.keys[name], _unknown_field(c, name, usage))
            continue
        stored = _value(c, c.plan.fields[index].record, value)
        if stored is not None:
            out[index] = stored
    return out


def _unknown_field(c: Checker, name: str, usage: int) -> str:
    label = USAGE_NAMES[usage]
    for other, names in c.field_names.items():
        if key(name) in names:
            return f"'{name}' is a {USAGE_NAMES[other]} field, not a {label} field"
    return f"unknown {label} custom field '{name}'"


def _value(c: Checker, spec: Record, node: SeedNode) -> str | None:
    """The stored form of one value, checked as the API checks it."""
    if isinstance(node.value, bool):
        raw: str | None = "true" if node.value else "false"
    else:
        raw = "" if node.value is None else scalar_text(node)
    if raw is None:
        c.p.add(node, f"the value of '{spec['name']}' must be a single value")
        return None
    if spec["type"] == DROPDOWN and raw.strip():
        # The seed names options; the API (and the store) speak option ids.
        option = next((o for o in spec["options"] if key(o["name"]) == key(raw)), None)
        if option is None:
            names = ", ".join(o["name"] for o in spec["options"]) or "none"
            c.p.add(node, f"'{raw}' is not an option of '{spec['name']}' ({names})")
            return None
        raw = str(option["id"])
    try:
        return validate_value(spec, raw)
    except HttpError as exc:
        c.p.add(node, exc.message)
        return None
