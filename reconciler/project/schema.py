"""The JSON Schema of `reconciler.yaml`, committed as `schemas/project.schema.json`
(`reconciler environments --schema` prints it; a test keeps the file equal to it)."""

from __future__ import annotations

import json
from typing import Any

from reconciler.project.model import ProjectFile

SCHEMA_DRAFT = "https://json-schema.org/draft/2020-12/schema"
SCHEMA_ID = "urn:reconciler:schema:project:1"


def project_schema() -> dict[str, Any]:
    schema = ProjectFile.model_json_schema()
    schema["title"] = "reconciler project file (reconciler.yaml)"
    return {"$schema": SCHEMA_DRAFT, "$id": SCHEMA_ID, **schema}


def project_schema_text() -> str:
    return json.dumps(project_schema(), indent=2, sort_keys=True) + "\n"
