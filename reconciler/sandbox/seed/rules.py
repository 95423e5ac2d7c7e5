"""Automation rules in a seed."""

from __future__ import annotations

from defusedxml import DefusedXmlException, ElementTree

from reconciler.sandbox import records
from reconciler.sandbox.seed.checker import Checker
from reconciler.sandbox.seed.entry import Entry
from reconciler.sandbox.seed.reading import SeedNode

RULE_FIELDS = "id name enabled conditions actions"


def check_rules(c: Checker, node: SeedNode | None) -> None:
    seen: set[int] = set()
    for entry in c.entries(node, "automation_rules", "an automation rule", RULE_FIELDS):
        rid = entry.integer("id", required=True, minimum=1)
        name = entry.text("name")
        enabled = entry.flag("enabled", True)
        parts = {part: _xml_fragment(c, entry, part) for part in ("conditions", "actions")}
        if rid is None:
            continue
        if rid in seen:
            c.p.add(entry.at("id"), f"duplicate rule id {rid}")
            continue
        seen.add(rid)
        rule = records.rule(name or f"Rule {rid}", enabled=enabled, **parts)
        c.plan.rules.append((rid, rule))


def _xml_fragment(c: Checker, entry: Entry, name: str) -> str:
    """The inner XML of <conditions> or <actions>; empty means none."""
    text = (entry.text(name, strip=False) or "").strip()
    try:
        ElementTree.fromstring(f"<{name}>{text}</{name}>")
    except (ElementTree.ParseError, DefusedXmlException) as exc:
        # The rule endpoints embed the fragment in their XML answer.
        reason = str(exc).split(":")[0]  # its position is in the wrapped text
        c.p.add(entry.at(name), f"'{name}' is not a well-formed XML fragment: {reason}")
    return text
