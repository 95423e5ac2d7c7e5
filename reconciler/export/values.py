"""Live custom field values as manifest values, chosen so that `plan` reads them back as
equal (the same normalisation as `kinds/custom_fields/planner.py`):

- text and multi-line text: the text without trailing white space (a multi-line text
  keeps one final line break, so that it is written as a `|` block);
- date: a date (`2027-01-31`); checkbox: `true`/`false`;
- dropdown: the option's name when the API lists the field's options (then the planner
  resolves it); else, when the value items name their option (`ValueWithOption` with an
  `OptionID`, as some versions send), the name, and the name -> id pair goes to
  `settings.custom_field_options`, where the planner finds it; else `{option_id: N}`,
  which needs no name at all.

A value that could not be read back as itself (a date the planner cannot parse, a
checkbox that is neither true nor false, a dropdown value that is no option id, a field
whose name another field of the same kind shares) is left out with a note: left out, the
field is not managed, which is true to what the export knows.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import date
from typing import Any

from reconciler.kinds.custom_fields.reader import (
    CHECKBOX,
    DATE,
    DROPDOWN,
    TEXT,
    CustomFieldCatalogue,
    FieldDefinition,
    live_value,
)
from reconciler.resources.base import norm_key


@dataclass
class LearnedOptions:
    """Dropdown option names learned from value items, for fields whose options the API
    does not list: usage type -> field name -> option name -> id (for
    `settings.custom_field_options`, where each kind's fields have their own table)."""

    by_usage: dict[int, dict[str, dict[str, int]]] = field(default_factory=dict)

    def learn(self, usage: int, definition: FieldDefinition, name: str, option_id: int) -> bool:
        """Records the pair; False when the name already stands for another option."""
        options = self.by_usage.setdefault(usage, {}).setdefault(definition.name, {})
        for known, known_id in options.items():
            if norm_key(known) == norm_key(name):
                return known_id == option_id
        options[name] = option_id
        return True

    def settings(self) -> dict[int, dict[str, dict[str, int]]]:
        return {
            usage: {
                name: dict(sorted(options.items(), key=lambda item: item[1]))
                for name, options in sorted(fields.items(), key=lambda i: norm_key(i[0]))
                if options
            }
            for usage, fields in sorted(self.by_usage.items())
        }


@dataclass
class ValueExporter:
    """Converts the value items of one usage (companies, users or assets)."""

    catalogue: CustomFieldCatalogue
    usage: int
    include_empty: bool
    learned: LearnedOptions
    notes: list[str]
    leave_out: str | None = None  # `settings.ownership`'s marker field: the marker's to set

    def values(self, items: Iterable[Mapping[str, Any]], owner: str) -> dict[str, Any]:
        """The `custom_fields` mapping of one object, in the catalogue's order."""
        by_id: dict[int, Mapping[str, Any]] = {}
        for item in items:
            try:
                by_id[int(item["FieldID"])] = item
            except (KeyError, TypeError, ValueError):
                continue
        found: dict[str, Any] = {}
        for definition in self.catalogue.by_usage.get(self.usage, {}).values():
            if self.leave_out is not None and norm_key(definition.name) == norm_key(self.leave_out):
                continue
            found_item = by_id.get(definition.id)
            stored = live_value(definition, found_item)
            if stored is None:
                if self.include_empty:
                    found[definition.name] = None
                continue
            value = self._value(definition, stored, found_item or {}, owner)
            if value is not None:
                found[definition.name] = value
        known = {d.id for d in self.catalogue.by_usage.get(self.usage, {}).values()}
        for field_id in sorted(set(by_id) - known):
            item = by_id[field_id]
            name = str(item.get("FieldName") or "")
            if self.catalogue.field(self.usage, name) is None:
                continue  # not a field of this kind's definitions: nothing a manifest can set
            # Read as a text field: does the item hold a value at all?
            if live_value(FieldDefinition(field_id, name, TEXT), item) is not None:
                self.notes.append(
                    f"{owner}: custom field {name!r} (id {field_id}) is left out: another "
                    "field has the same name, and manifests name fields"
                )
        return found

    def _value(
        self, definition: FieldDefinition, stored: str, item: Mapping[str, Any], owner: str
    ) -> Any:
        kind = definition.type
        if kind == CHECKBOX:
            if stored in ("true", "false"):
                return stored == "true"
            return self._skip(owner, definition, stored, "a checkbox value other than true/false")
        if kind == DATE:
            try:
                return date.fromisoformat(stored)
            except ValueError:
                return self._skip(owner, definition, stored, "a date the planner cannot read")
        if kind == DROPDOWN:
            return self._option(definition, stored, item, owner)
        return stored + "\n" if "\n" in stored else stored

    def _option(
        self, definition: FieldDefinition, stored: str, item: Mapping[str, Any], owner: str
    ) -> Any:
        if not stored.isdigit():
            return self._skip(owner, definition, stored, "a dropdown value that is no option id")
        option_id = int(stored)
        name = definition.option_names.get(option_id)
        if name is not None and definition.options.get(norm_key(name)) == option_id:
            return name
        if not definition.options:
            shown = item.get("ValueWithOption")
            named = item.get("OptionID")
            if (
                isinstance(shown, str)
                and shown.strip()
                and not shown.strip().isdigit()
                and str(named) == stored
                and self.learned.learn(self.usage, definition, shown.strip(), option_id)
            ):
                return shown.strip()
        return {"option_id": option_id}

    def _skip(self, owner: str, definition: FieldDefinition, stored: str, why: str) -> None:
        self.notes.append(
            f"{owner}: custom field {definition.name!r} is left out: {stored!r} is {why}"
        )
