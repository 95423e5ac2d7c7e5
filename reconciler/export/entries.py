"""The live snapshot as manifest entries (pure): what every kind's converter
(`kinds/<kind>/export.py`) shares. Each entry is a dict with its keys in the order of the
kind's model, the entries sorted by key.

What is written (the decisions; `plan` on the result must show no change):
- Fields that only mirror server state (ids, counts, timestamps, LastSeen, TicketCount,
  createdAt, ...) are never written, nor `send_welcome_email` (it acts on creation only).
- Flags and numbers are always written (`is_admin`, `disabled`, `enabled`, `quantity`):
  they are state, never "empty". Texts, lists, references and custom field values are
  written when they hold a value; with `include_empty`, also when empty (`""`, `[]`,
  `null`), so that the manifests manage them too. Omitted, a field is not managed: a
  value set later in the helpdesk is then not drift.
- Texts are written without trailing white space (the planner ignores it); a multi-line
  text keeps one final line break.
- Two live objects with one key (names compare without regard to case and runs of white
  space) cannot both be in manifests: the last listed is written (the one the planner's
  lookup by key finds), with a note; for assets and employees, whose planner refuses an
  entry that names several live objects, none is. Categories are grouped by name (the
  planner matches them by name and section): see `kinds/categories/export.py`.

`LiveSnapshot` is what the conversion works from: each kind's live state, as the planner
sees it (read by reconciler/run/export.py).

Custom field values (`ValueExporter`) are written as manifest values chosen so that `plan`
reads them back as equal (the same normalisation as `kinds/custom_fields/planner.py`):

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

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from datetime import date
from typing import Any, TypeVar

from pydantic import BaseModel

from reconciler.export.selection import Selection
from reconciler.kinds.custom_fields.reader import (
    CHECKBOX,
    DATE,
    DROPDOWN,
    TEXT,
    USAGE,
    CustomFieldCatalogue,
    FieldDefinition,
    live_value,
)
from reconciler.kinds.custom_fields.reader import KIND as CATALOGUE
from reconciler.kinds.table import ENTRY_MODELS
from reconciler.manifest.models import Kind
from reconciler.resources.base import norm_key

T = TypeVar("T")

Entry = dict[str, Any]


def text(value: Any) -> str:
    """A live text as written: without trailing white space; multi-line with one final
    line break, so that it is written as a `|` block."""
    written = "" if value is None else str(value).rstrip()
    return written + "\n" if "\n" in written else written


def ordered(kind: str, entry: Entry) -> Entry:
    """`entry` with its keys in the order of the kind's model (the schema's order)."""
    model: type[BaseModel] = ENTRY_MODELS[Kind(kind)]
    order = list(model.model_fields)
    return dict(sorted(entry.items(), key=lambda item: order.index(item[0])))


def unique_names(values: Iterable[str]) -> list[str]:
    """Without repeats (compared without regard to case), in the order given."""
    seen: set[str] = set()
    found = []
    for value in values:
        if value and value.casefold() not in seen:
            seen.add(value.casefold())
            found.append(value)
    return found


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


@dataclass
class LiveSnapshot:
    """What was read: each kind's live state as its reader gives it. Lists are complete
    (other kinds look names up in them); per-object details (custom values, technicians)
    are filled for the exported objects only."""

    kinds: tuple[str, ...]  # the kinds exported
    live: Mapping[str, Any]  # kind -> its live state (every caller gives it)
    notes: list[str] = field(default_factory=list)

    def of(self, kind: str, empty: T) -> T:
        """The live state of `kind`; `empty` (of its type) when it was not read."""
        found = self.live.get(kind)
        return found if isinstance(found, type(empty)) else empty

    def exported(self, cls: type[T]) -> T | None:
        """The live state of type `cls` of a kind exported, or None."""
        found = [self.live.get(kind) for kind in self.kinds]
        return next((live for live in found if isinstance(live, cls)), None)

    @property
    def catalogue(self) -> CustomFieldCatalogue:
        return self.of(CATALOGUE, CustomFieldCatalogue({}))


@dataclass
class Converter:
    snapshot: LiveSnapshot
    selection: Selection
    include_empty: bool = False
    notes: list[str] = field(default_factory=list)
    learned: LearnedOptions = field(default_factory=LearnedOptions)
    keys: dict[str, set[str]] = field(default_factory=dict)  # kind -> normalised keys written
    unknown_rules: list[Entry] = field(default_factory=list)  # rules whose state is unknown

    def live(self, kind: str, empty: T) -> T:
        """The live state of `kind` (`empty` when it was not read)."""
        return self.snapshot.of(kind, empty)

    def values(self, kind: str) -> ValueExporter:
        catalogue = self.snapshot.catalogue
        exporter = ValueExporter(
            catalogue, USAGE[kind], self.include_empty, self.learned, self.notes
        )
        if (ownership := self.selection.ownership) is not None:
            exporter.leave_out = ownership.custom_field
        return exporter

    def keyed(
        self,
        kind: str,
        objects: Iterable[Any],
        key_of: Callable[[Any], str | None],
        *,
        drop_shared: bool = False,
    ) -> list[Any]:
        """The selected objects with a key, one per key, in key order; objects sharing a
        key are reported (and dropped altogether when `drop_shared`)."""
        groups: dict[str, list[Any]] = {}
        for obj in objects:
            key = key_of(obj)
            normalised = self.selection.key(kind, key) if key else None
            if normalised is None or not self.selection.wants(kind, key):
                continue
            groups.setdefault(normalised, []).append(obj)
        chosen = []
        for normalised, group in sorted(groups.items()):
            if len(group) > 1:
                shown = key_of(group[0])
                if drop_shared:
                    self.notes.append(
                        f"{kind}/{shown}: {len(group)} live objects share this key, so no "
                        "entry can name one of them: none is written (give each its own key "
                        "to manage them)"
                    )
                    continue
                self.notes.append(
                    f"{kind}/{shown}: {len(group)} live objects share this name (case and "
                    "spacing aside): only the last listed, the one `plan` compares with, is "
                    "written"
                )
            self.keys.setdefault(kind, set()).add(normalised)
            chosen.append(group[-1])
        return chosen

    def listed(self, kind: str, empty: Any, key_of: Callable[[Any], str | None]) -> list[Any]:
        """The selected objects of `kind`'s listing (its live state's `items`), as `keyed`."""
        return self.keyed(kind, self.live(kind, empty).items, key_of)

    def put(self, entry: Entry, name: str, value: Any) -> None:
        """Sets a text, list or reference field when it has a value (or with include_empty)."""
        if value not in (None, "", []) or self.include_empty:
            entry[name] = value
