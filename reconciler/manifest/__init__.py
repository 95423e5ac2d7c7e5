"""Manifests (DESIGN §2): YAML files loaded into a `DesiredState`, offline validation, and
the JSON Schema. Every problem is reported in one `ManifestError`, each problem as
`file:line:column: message`.

    load_manifests(paths, env, variables=None) -> DesiredState
    load_manifest_text(text, name="manifest.yaml", *, env=None, variables=None) -> DesiredState
    validate_manifests(paths, env, variables=None) -> Validated   (reconciler validate)
    validate_references(desired) -> list[str]; reference_warnings(desired) -> list[str]
    json_schema() -> dict; schema_text() -> str; write_schema(path)  (reconciler schema)
"""

from __future__ import annotations

from reconciler.manifest.desired import DesiredState
from reconciler.manifest.loader import load_manifest_text, load_manifests
from reconciler.manifest.models import Kind, Manifest, Settings, managed_fields
from reconciler.manifest.schema import json_schema, schema_text, write_schema
from reconciler.manifest.validate import (
    Validated,
    reference_warnings,
    validate_manifests,
    validate_references,
)

__all__ = [
    "DesiredState",
    "Kind",
    "Manifest",
    "Settings",
    "Validated",
    "json_schema",
    "load_manifest_text",
    "load_manifests",
    "managed_fields",
    "reference_warnings",
    "schema_text",
    "validate_manifests",
    "validate_references",
    "write_schema",
]
