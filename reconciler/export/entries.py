"""The live snapshot as manifest entries (pure): one function per kind, each entry a dict
with its keys in the order of the kind's model, the entries sorted by key.

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
  planner matches them by name and section): see `categories`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any, TypeVar

from pydantic import BaseModel

from reconciler.export.selection import RULES, Selection
from reconciler.export.snapshot import LiveSnapshot
from reconciler.export.values import LearnedOptions, ValueExporter
from reconciler.manifest.kinds import ENTRY_MODELS, spec
from reconciler.manifest.models import Kind
from reconciler.resources.base import norm_key
from reconciler.resources.category_records import LiveCategories
from reconciler.resources.company_records import LiveCompanies
from reconciler.resources.custom_field_records import USAGE
from reconciler.resources.department_records import LiveDepartments
from reconciler.resources.implicit_technicians import implicit_access
from reconciler.resources.rule_records import LiveRules
from reconciler.resources.tech_permission_records import LiveTechPermissions
from reconciler.resources.user_records import LiveUsers

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


# -- the kinds: one function each, named as the kind (registered in export/run.py) -----


def companies(conv: Converter) -> list[Entry]:
    values = conv.values("companies")
    entries = []
    for company in conv.listed("companies", LiveCompanies({}), lambda c: c.name):
        entry: Entry = {"name": company.name}
        conv.put(entry, "email_domains", unique_names(company.email_domains))
        conv.put(entry, "notes", text(company.notes))
        if company.custom_values is not None:
            found = values.values(company.custom_values, f"companies/{company.name}")
            conv.put(entry, "custom_fields", found or None)
        entries.append(ordered("companies", entry))
    return entries


def departments(conv: Converter) -> list[Entry]:
    names = [name for _, name in conv.live("departments", LiveDepartments({})).by_key.values()]
    return [{"name": name} for name in conv.keyed("departments", names, lambda n: n)]


def categories(conv: Converter) -> list[Entry]:
    entries = []
    categories = conv.live("categories", LiveCategories({}))
    firsts = [group[0] for group in categories.by_key.values()]
    for category in conv.keyed("categories", firsts, lambda c: c.name):
        entry: Entry = {"name": category.name}
        others = categories.named(category.name)[1:]
        if others:
            conv.notes.append(
                f"categories/{category.name}: is also {', '.join(c.where() for c in others)}"
                f"; manifests key categories by name, so only the one {category.where()} "
                "is written"
            )
        if category.section or others or conv.include_empty:
            # `section: null` says "no section"; left out, any section would match.
            entry["section"] = category.section
        entries.append(ordered("categories", entry))
    return entries


def tech_permissions(conv: Converter) -> list[Entry]:
    categories = conv.live("categories", LiveCategories({}))
    technicians = conv.live("tech_permissions", LiveTechPermissions({})).by_category
    chosen = [c for g in categories.by_key.values() for c in g[:1] if c.id in technicians]
    # The administrators, who have every category without a permission.
    users = conv.live(spec("tech_permissions").target("technicians"), LiveUsers({}))
    admins = [u.id for u in users.items if u.is_admin]
    access = implicit_access(admins, technicians, [c.id for c in categories.all()])
    implicit: dict[int, str] = {}
    entries = []
    for category in conv.keyed("tech_permissions", chosen, lambda c: c.name):
        shared = len(categories.named(category.name)) > 1
        if shared and norm_key(category.name) not in conv.keys.get("categories", set()):
            conv.notes.append(
                f"tech_permissions/{category.name}: left out: several categories have "
                "this name, and only with its `categories` entry (which gives the "
                "section) can the manifests say which one (export categories too)"
            )
            continue
        explicit = [t for t in technicians[category.id] if not access.covers(t.id)]
        implicit.update((t.id, t.username) for t in technicians[category.id] if access.covers(t.id))
        names = unique_names(t.username for t in explicit)
        if not names and not conv.include_empty:
            continue
        entry = {"category": category.name, "technicians": sorted(names, key=str.casefold)}
        entries.append(entry)
    for user_id, username in sorted(implicit.items(), key=lambda i: i[1].casefold()):
        conv.notes.append(
            f"tech_permissions: {username} has access through {access.through[user_id]}: "
            "not written as a category permission (the plan leaves it alone)"
        )
    return entries


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
