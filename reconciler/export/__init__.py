"""`reconciler export`: the live state as manifests, so that `export` then `plan` on the
exported files shows no change (DESIGN §3, issue 5).

    Selection.build(kinds=, targets=, excludes=, rule_ids=) -> Selection
    await export_live(connection, selection, include_empty=False) -> ExportResult
    convert(snapshot, selection, ...) -> ExportResult           (pure)
    ExportResult.files(schema) -> {file name: text};  .document(schema) -> text
    write_directory(result, directory, schema=None, force=False) -> Written

The modules: `selection` (kinds, targets, excludes, rule ids), `snapshot` (reading, the
only I/O), `entries`, `people`, `assets` and `values` (live objects to entries, pure),
`yamlout` (YAML text), `result` (files and headers), `output` (the directory), `run`.
What is written and why is said in each module's docstring.
"""

from __future__ import annotations

from reconciler.export.output import Written, check_directory, existing_manifests, write_directory
from reconciler.export.result import SCHEMA_FILE, ExportResult
from reconciler.export.run import convert, export_live, public_url
from reconciler.export.selection import (
    EXPORT_KINDS,
    KIND_FILES,
    SETTINGS_FILE,
    Selection,
    parse_rule_ids,
)
from reconciler.export.snapshot import LiveSnapshot

__all__ = [
    "EXPORT_KINDS",
    "KIND_FILES",
    "SCHEMA_FILE",
    "SETTINGS_FILE",
    "ExportResult",
    "LiveSnapshot",
    "Selection",
    "Written",
    "check_directory",
    "convert",
    "existing_manifests",
    "export_live",
    "parse_rule_ids",
    "public_url",
    "write_directory",
]
