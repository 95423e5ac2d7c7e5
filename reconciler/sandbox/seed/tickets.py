"""Automation rules and tickets in a seed."""

from __future__ import annotations

from typing import Any

from defusedxml import DefusedXmlException, ElementTree

from reconciler.sandbox import records
from reconciler.sandbox.seed.checker import Checker
from reconciler.sandbox.seed.entry import Entry, key
from reconciler.sandbox.seed.fields import custom_values
from reconciler.sandbox.seed.plan import PlannedTicket
from reconciler.sandbox.seed.reading import SeedNode

RULE_FIELDS = "id name enabled conditions actions"
TICKET_FIELDS = "subject body category submitter assignee status priority tags custom_fields"


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


def check_tickets(c: Checker, node: SeedNode | None) -> None:
    priorities = records.STANDARD_PRIORITIES + c.plan.priorities
    usage = records.USAGE_TYPES["tickets"]
    for entry in c.entries(node, "tickets", "a ticket", TICKET_FIELDS):
        kwargs: dict[str, Any] = {
            "subject": entry.text("subject", required=True),
            "body": entry.text("body", strip=False) or "",
            "status_id": _code(c, entry, "status", records.STANDARD_STATUSES, 1),
            "priority": _code(c, entry, "priority", priorities, 0),
            "tags": list(dict.fromkeys(name for name, _ in entry.texts("tags"))),
        }
        category = c.reference(entry, "category", c.plan.categories, required=True)
        submitter = c.reference(entry, "submitter", c.plan.users, required=True)
        assignee = c.reference(entry, "assignee", c.plan.users)
        if assignee and c.plan.users[assignee].kwargs["role"] == "user":
            c.p.add(entry.at("assignee"), "the assignee must be a technician or admin")
        custom = custom_values(c, entry.get("custom_fields"), usage, category)
        if kwargs["subject"] is None or category is None or submitter is None:
            continue
        c.plan.tickets.append(PlannedTicket(kwargs, category, submitter, assignee, custom))


def _code(c: Checker, entry: Entry, name: str, table: list[tuple[int, str]], default: int) -> int:
    """A status or priority, by id or by name."""
    node = entry.get(name)
    if node is None:
        return default
    for code, label in table:
        if isinstance(node.value, int) and not isinstance(node.value, bool):
            if node.value == code:
                return code
        elif isinstance(node.value, str) and key(node.value) == key(label):
            return code
    names = ", ".join(f"{label} ({code})" for code, label in table)
    c.p.add(node, f"unknown {name} '{node.raw}'; known: {names}")
    return default
