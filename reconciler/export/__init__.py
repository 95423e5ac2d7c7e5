"""`reconciler export`'s conversion: the live state as manifests, so that `export` then
`plan` on the exported files shows no change (DESIGN §3). Pure: the reading and the
writing are reconciler/run/export.py's.

    selection.Selection.build(kinds=, targets=, excludes=, rule_ids=) -> Selection
    result.convert(snapshot, selection, ...) -> ExportResult
    result.ExportResult.files(schema) -> {file name: text};  .document(schema) -> text

The modules: `selection` (kinds, targets, excludes, rule ids), `entries` (live objects
and custom field values to entries), `yamlout` (YAML text), `result` (the conversion, the
settings a clone needs, files and headers). What is written and why is said in each
module's docstring. Each kind's converter is in its package (`kinds/<kind>/export.py`),
listed in the register of kinds.

The package hands no name on: the kinds' converters import its shared helpers, and
`result` converts through the register, which imports the converters. Import each name
from the module that defines it.
"""
