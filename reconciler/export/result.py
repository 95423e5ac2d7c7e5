"""An export's result: the entries of every kind exported (`convert`, pure), and their
text, one file per kind (`files()`) or one manifest holding them all (`document()`).

Each text starts with the `yaml-language-server` schema comment (editors then complete
and check the fields) and a line naming the source (base URLs without credentials) and
the time, in UTC.

`settings.yaml` holds what a clone of the exported helpdesk needs (`clone_settings`):

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

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, TypeVar

from reconciler.export.entries import Converter, Entry, LiveSnapshot
from reconciler.export.selection import EMPLOYEES, KIND_FILES, RULES, SETTINGS_FILE, Selection
from reconciler.export.yamlout import commented_entries, dump, dump_header, entries_node, node
from reconciler.kinds.categories.reader import LiveCategories
from reconciler.kinds.custom_fields.reader import DROPDOWN, CustomFieldCatalogue
from reconciler.kinds.register import CONVERTERS
from reconciler.kinds.table import KINDS, service_of, spec
from reconciler.resources.base import norm_key

_PLACEHOLDER = re.compile(r"^(#\s+)enabled: null$", re.MULTILINE)
SCHEMA_FILE = "manifest.schema.json"
_UNKNOWN_RULES = (
    "The service does not say whether these rules are enabled (its rule document carries",
    "no state), so they are not managed yet: to manage one, uncomment it (remove `# `) and",
    "choose `enabled`; it is then switched on every apply, as its state cannot be read.",
)


T = TypeVar("T")
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


@dataclass(frozen=True)
class ExportResult:
    entries: Mapping[str, Sequence[Entry]]  # kind -> entries, every kind exported
    sources: Mapping[str, str]  # service -> base URL, without credentials
    exported_at: datetime
    unknown_rules: Sequence[Entry] = ()  # rules whose enabled state is unknown
    clone: CloneSettings = field(default_factory=CloneSettings)
    warnings: Sequence[str] = ()

    @property
    def custom_field_options(self) -> Mapping[str, Mapping[str, Mapping[str, int]]]:
        return self.clone.custom_field_options

    @property
    def count(self) -> int:
        return sum(len(entries) for entries in self.entries.values())

    def file_names(self) -> list[str]:
        names = [KIND_FILES[kind] for kind in KIND_FILES if kind in self.entries]
        return [SETTINGS_FILE, *names] if self.clone else names

    def files(self, schema: str = SCHEMA_FILE) -> dict[str, str]:
        """File name -> text: one file per kind exported (an empty list when the kind has
        no live object), and `settings.yaml` with what a clone needs (`clone_settings`)."""
        texts = {}
        if self.clone:
            header = self._header(schema, ("helpdesk",), (*CLONE_LEAD, *self.clone.unseen))
            texts[SETTINGS_FILE] = dump({"settings": self._settings()}, header)
        for kind, file_name in KIND_FILES.items():
            if kind not in self.entries:
                continue
            header = self._header(schema, (service_of(kind),))
            trailer = self._unknown_rules() if kind == RULES else ""
            text = dump(_document(kind, self.entries[kind]), header, trailer)
            texts[file_name] = _open_rules(text) if kind == RULES and trailer else text
        return texts

    def document(self, schema: str = SCHEMA_FILE) -> str:
        """Every kind in one manifest (in the order of the schema)."""
        services = tuple(dict.fromkeys(service_of(k) for k in self.entries))
        helpdesk: dict[str, Any] = {}
        if self.clone:
            helpdesk["settings"] = node(self._settings())
        for kind in KIND_FILES:
            if kind in self.entries and kind != EMPLOYEES:
                helpdesk.update(_document(kind, self.entries[kind]))
        header = self._header(schema, services)
        text = dump(helpdesk, header) if helpdesk else dump_header(header)
        if self.unknown_rules:
            # Top-level keys may follow one another in separate dumps: the commented rules
            # then sit right under the rules' key, where they belong.
            text = _open_rules(text) + self._unknown_rules()
        if EMPLOYEES in self.entries:
            text += dump(_document(EMPLOYEES, self.entries[EMPLOYEES]), ())
        return text

    def _settings(self) -> dict[str, Any]:
        settings: dict[str, Any] = {}
        if self.clone.custom_field_options:
            options = self.clone.custom_field_options
            settings["custom_field_options"] = {
                kind: {name: dict(found) for name, found in fields.items()}
                for kind, fields in options.items()
            }
        if self.clone.section_ids:
            settings["section_ids"] = dict(self.clone.section_ids)
        return settings

    def _unknown_rules(self) -> str:
        if not self.unknown_rules:
            return ""
        lead = "".join(f"# {line}\n" for line in _UNKNOWN_RULES)
        entries = [{**e, "enabled": None} for e in self.unknown_rules]
        text = commented_entries(entries)
        return lead + _PLACEHOLDER.sub(r"\1enabled: false  # or true: not known", text)

    def _header(self, schema: str, services: Sequence[str], extra: Sequence[str] = ()) -> list[str]:
        sources = " and ".join(self.sources[s] for s in services if s in self.sources)
        when = self.exported_at.strftime("%Y-%m-%dT%H:%M:%SZ")
        return [
            f"yaml-language-server: $schema={schema}",
            f"Exported by `reconciler export` from {sources or 'the live state'} at {when}.",
            *extra,
        ]


def _open_rules(text: str) -> str:
    """The rules' `[]` as a bare key, so that uncommented rules are its items."""
    return text.replace(f"\n{RULES}: []\n", f"\n{RULES}:\n")


def _document(kind: str, entries: Sequence[Entry]) -> dict[str, Any]:
    """`{kind: entries}`, nested as the manifest nests it: `{workspace: {employees: ...}}`."""
    document: dict[str, Any] = {}
    inner = document
    *sections, name = spec(kind).path
    for section in sections:
        inner = inner.setdefault(section, {})
    inner[name] = entries_node(entries)
    return document


def convert(
    snapshot: LiveSnapshot,
    selection: Selection,
    *,
    include_empty: bool = False,
    sources: dict[str, str] | None = None,
    now: datetime | None = None,
    warnings: list[str] | None = None,
) -> ExportResult:
    """The entries of every kind the snapshot holds."""
    conv = Converter(snapshot, selection, include_empty)
    entries = {kind: CONVERTERS[kind](conv) for kind in snapshot.kinds}
    notes = [*(warnings or []), *snapshot.notes, *conv.notes]
    notes += [
        f"--target {target} matched no live object"
        for target in selection.unmatched_targets(conv.keys)
    ]
    return ExportResult(
        entries,
        sources or {},
        now or datetime.now(UTC),
        conv.unknown_rules,
        clone_settings(
            snapshot.catalogue, conv.learned.settings(), snapshot.exported(LiveCategories)
        ),
        notes,
    )
