"""An export's result: the entries of every kind exported (`convert`, pure), and their
text, one file per kind (`files()`) or one manifest holding them all (`document()`).

Each text starts with the `yaml-language-server` schema comment (editors then complete
and check the fields) and a line naming the source (base URLs without credentials) and
the time, in UTC.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from reconciler.export.clone import CLONE_LEAD, CloneSettings, clone_settings
from reconciler.export.entries import Converter, Entry, LiveSnapshot
from reconciler.export.selection import EMPLOYEES, KIND_FILES, RULES, SETTINGS_FILE, Selection
from reconciler.export.yamlout import commented_entries, dump, dump_header, entries_node, node
from reconciler.kinds.categories.reader import LiveCategories
from reconciler.kinds.register import CONVERTERS
from reconciler.kinds.table import service_of, spec

_PLACEHOLDER = re.compile(r"^(#\s+)enabled: null$", re.MULTILINE)
SCHEMA_FILE = "manifest.schema.json"
_UNKNOWN_RULES = (
    "The service does not say whether these rules are enabled (its rule document carries",
    "no state), so they are not managed yet: to manage one, uncomment it (remove `# `) and",
    "choose `enabled`; it is then switched on every apply, as its state cannot be read.",
)


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
        no live object), and `settings.yaml` with what a clone needs (`clone.py`)."""
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
