"""`reconciler export`: the live state as manifests, so that `export` then `plan` on the
exported files shows no change (DESIGN §3).

    selection.Selection.build(kinds=, targets=, excludes=, rule_ids=) -> Selection
    await run.export_live(connection, selection, include_empty=False) -> ExportResult
    run.convert(snapshot, selection, ...) -> ExportResult           (pure)
    result.ExportResult.files(schema) -> {file name: text};  .document(schema) -> text
    output.write_directory(result, directory, schema=None, force=False) -> Written

The modules: `selection` (kinds, targets, excludes, rule ids), `snapshot` (reading, the
only I/O), `entries` and `values` (live objects to entries, pure),
`yamlout` (YAML text), `result` (files and headers), `output` (the directory), `run`.
What is written and why is said in each module's docstring. Each kind's converter is in
its package (`kinds/<kind>/export.py`), listed in the register of kinds.

The package hands no name on: the kinds' converters import its shared helpers, and what it
would import (`run`, `snapshot`) reads through the register, which imports the converters.
Import each name from the module that defines it.
"""
