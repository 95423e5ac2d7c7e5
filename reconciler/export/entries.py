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
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, TypeVar

from pydantic import BaseModel

from reconciler.export.selection import Selection
from reconciler.export.values import LearnedOptions, ValueExporter
from reconciler.kinds.custom_fields.reader import KIND as CATALOGUE
from reconciler.kinds.custom_fields.reader import USAGE, CustomFieldCatalogue
from reconciler.kinds.table import ENTRY_MODELS
from reconciler.manifest.models import Kind

T = TypeVar("T")  # pragma: no mutate

Entry = dict[str, Any]  # pragma: no mutate


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
