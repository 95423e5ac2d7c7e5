"""The settings a clone of the exported helpdesk needs (issue 11, item 5): what the API
cannot create but the manifests refer to, as far as the export can see it.

- `custom_field_options`: every dropdown option the export sees, per kind and field: the options
  `CustomFields` lists (some versions do), and those learned from value items. On the
  exported helpdesk the planner needs them only where the API lists no options; on a
  clone, the same names must map to the clone's own ids.
- `section_ids`: every category section the categories show. The API cannot show a
  section no category is in yet, which is how a new helpdesk's sections start.
- What it cannot see becomes a comment with the remedy: dropdowns whose options the API
  shows nowhere, and sections that hold no category.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TypeVar

from reconciler.kinds.categories.reader import LiveCategories
from reconciler.kinds.custom_fields.reader import DROPDOWN, CustomFieldCatalogue
from reconciler.kinds.table import KINDS
from reconciler.resources.base import norm_key

T = TypeVar("T")  # pragma: no mutate
# The kind whose custom fields each usage type holds (from the table of kinds).
USAGE_NAMES = {row.custom_field_usage: row.name for row in KINDS if row.custom_field_usage}

CLONE_LEAD = (
    "What the API cannot create but the manifests refer to, as this helpdesk has it: the",
    "ids are this helpdesk's. To configure another helpdesk from these manifests, create",
    "the custom fields, their options and the category sections in its admin panel first,",
    "then put its own ids here.",
)


@dataclass(frozen=True)
class CloneSettings:
    # kind -> field name -> option name -> id
    custom_field_options: Mapping[str, Mapping[str, Mapping[str, int]]] = field(
        default_factory=dict
    )
    section_ids: Mapping[str, int] = field(default_factory=dict)
    unseen: tuple[str, ...] = ()  # comment lines: what the export could not see, and why

    def __bool__(self) -> bool:
        return bool(self.custom_field_options or self.section_ids or self.unseen)


def clone_settings(
    catalogue: CustomFieldCatalogue,
    learned: Mapping[int, Mapping[str, Mapping[str, int]]],
    categories: LiveCategories | None,
) -> CloneSettings:
    """`learned`: the options learned from value items, by usage type and field name;
    `categories`: None when the export did not read them (no section to infer)."""
    options: dict[str, dict[str, dict[str, int]]] = {}
    blind: list[str] = []
    for usage, fields in sorted(catalogue.by_usage.items()):
        kind = USAGE_NAMES.get(usage, str(usage))
        for definition in fields.values():
            if definition.type != DROPDOWN:
                continue
            seen = {name: ident for ident, name in definition.option_names.items()}
            seen.update(_learned_for(learned.get(usage, {}), definition.name))
            if seen:
                known = options.setdefault(kind, {}).setdefault(definition.name, {})
                known.update(seen)
            else:
                blind.append(f"{definition.name} ({kind})")
    unseen = []
    if blind:
        unseen += [
            "The API shows none of the options of these dropdowns, so their values are written",
            "as {option_id: N}; for a clone, add each here under custom_field_options as",
            "`KIND: {FIELD: {OPTION NAME: ID}}` with the clone's ids, and write the values",
            "by name:",
            *(f"  - {name}" for name in sorted(blind, key=str.casefold)),
        ]
    sections: dict[str, int] = {}
    if categories is not None:
        sections = {name: ident for ident, name in sorted(categories.sections().values())}
        unseen += [
            "A section that holds no category is not visible through the API: add any such",
            "section a clone needs to section_ids by hand.",
        ]
    ordered = {
        kind: {
            name: dict(sorted(found.items(), key=lambda item: item[1]))
            for name, found in sorted(fields.items(), key=lambda item: norm_key(item[0]))
        }
        for kind, fields in _in_kind_order(options)
    }
    return CloneSettings(ordered, sections, tuple(unseen))


def _in_kind_order(options: Mapping[str, T]) -> list[tuple[str, T]]:
    """The kinds as the table of kinds orders them (companies before users)."""
    order = [row.name for row in KINDS]
    return sorted(options.items(), key=lambda item: order.index(item[0]))


def _learned_for(learned: Mapping[str, Mapping[str, int]], name: str) -> Mapping[str, int]:
    for field_name, found in learned.items():
        if norm_key(field_name) == norm_key(name):
            return found
    return {}
