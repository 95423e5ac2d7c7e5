"""Manifests (DESIGN §2): YAML files loaded into a `DesiredState`, offline validation, and
the JSON Schema. Every problem is reported in one `ManifestError`, each problem as
`file:line:column: message`.

    loader.load_manifests(paths, env, variables=None) -> DesiredState
    loader.load_manifest_text(text, name="manifest.yaml", *, env=None, variables=None)
    validate.validate_manifests(paths, env, variables=None) -> Validated  (reconciler validate)
    validate.validate_references(desired) -> list[str]; .reference_warnings(desired)
    schema.json_schema() -> dict; .schema_text() -> str  (reconciler schema)

The package hands no name on: each kind's entry model (`kinds/<kind>/__init__.py`) imports
the manifest's shared types, and what this package would import (the loader, the
document) reads the table of kinds, which imports those models. Import each name from
the module that defines it.
"""
