"""Automation rules as manifest entries (pure; see export/entries.py): the rules whose
state the service says; the others are written as comments."""

from __future__ import annotations

from reconciler.export.entries import Converter, Entry
from reconciler.export.selection import RULES
from reconciler.kinds.automation_rules.reader import LiveRules


def automation_rules(conv: Converter) -> list[Entry]:
    """The rules whose state the service says; those it does not go to
    `conv.unknown_rules` (written as comments: `enabled` is required, and a guess would
    be a change on every plan)."""
    known, unknown = [], conv.unknown_rules
    for rule_id, info in sorted(conv.live(RULES, LiveRules({})).by_id.items()):
        if info is None:
            continue
        if not conv.selection.wants(RULES, str(rule_id)):
            continue
        conv.keys.setdefault(RULES, set()).add(str(rule_id))
        entry: Entry = {"id": rule_id}
        if info.name:
            entry["name"] = info.name
        if info.enabled is None:
            unknown.append(entry)
            continue
        entry["enabled"] = info.enabled
        known.append(entry)
    if unknown:
        ids = ", ".join(str(e["id"]) for e in unknown)
        conv.notes.append(
            f"{RULES}: the service does not say whether rule(s) {ids} are "
            "enabled: they are written as comments; uncomment each and set `enabled` "
            "to manage it"
        )
    return known
