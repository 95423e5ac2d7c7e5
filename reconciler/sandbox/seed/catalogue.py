"""The helpdesk's reference data in a seed: `departments`, `sections` and `categories`."""

from __future__ import annotations

from reconciler.sandbox.seed.checker import Checker
from reconciler.sandbox.seed.entry import Entry, items, key, scalar_text
from reconciler.sandbox.seed.reading import SeedNode


def check_names(c: Checker, node: SeedNode | None, what: str, into: dict[str, str]) -> None:
    """`departments` and `sections`: names, or mappings with a name."""
    for item in items(node, c.p, f"'{what}'"):
        name = scalar_text(item)
        if isinstance(item.value, dict):
            name = Entry(item, c.p, f"an item of '{what}'", "name").text("name")
        if not name or not name.strip():
            c.p.add(item, f"each item of '{what}' must be a name or {{name: ...}}")
        elif key(name) in into:
            c.p.add(item, f"duplicate name '{name.strip()}' in '{what}'")
        else:
            into[key(name)] = name.strip()


def check_categories(c: Checker, node: SeedNode | None) -> None:
    known = "name section for_techs_only from_address"
    for entry in c.entries(node, "categories", "a category", known):
        name, section = entry.text("name", required=True), entry.text("section")
        kwargs = {
            "name": name,
            "for_techs_only": entry.flag("for_techs_only", False),
            "from_address": entry.text("from_address") or None,
        }
        value = (kwargs, section or None)
        if c.put_new(c.plan.categories, name, value, entry.node, "category") and section:
            # Sections come into being as categories name them.
            c.plan.sections.setdefault(key(section), section)
