"""The JSON Schema of a manifest file, generated from the models (`reconciler schema`) and
committed as `schemas/manifest.schema.json`, where editors find it through

    # yaml-language-server: $schema=../../schemas/manifest.schema.json

A test keeps the committed file equal to `schema_text()`; after changing the models, write
it again with `reconciler schema > schemas/manifest.schema.json`.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from reconciler.manifest.models import Manifest

SCHEMA_DRAFT = "https://json-schema.org/draft/2020-12/schema"
SCHEMA_ID = "urn:reconciler:schema:manifest:1"


def json_schema() -> dict[str, Any]:
    """The schema of one manifest file (or one of its YAML documents)."""
    schema = Manifest.model_json_schema(mode="validation")
    schema["title"] = "reconciler manifest"
    return {"$schema": SCHEMA_DRAFT, "$id": SCHEMA_ID, **schema}


def schema_text() -> str:
    """The schema as committed: indented, keys sorted, one trailing newline."""
    return json.dumps(json_schema(), indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def write_schema(path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(schema_text(), encoding="utf-8")
    return path
