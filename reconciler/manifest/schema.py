"""The JSON Schema of a manifest file, generated from the models (`reconciler schema`) and
committed as `schemas/manifest.schema.json`, where editors find it through

    # yaml-language-server: $schema=../../schemas/manifest.schema.json

A test keeps the committed file equal to `schema_text()`; after changing the models, write
it again with `reconciler schema > schemas/manifest.schema.json`.

pydantic's schema is tidied for the tools that read it (check-jsonschema, editors):
- "X or null" is `type: [X, "null"]` (an optional section's definition has
  `type: ["object", "null"]`), never `anyOf: [..., {type: null}]`: a validator reports a
  mistake inside an `anyOf` member at the member's level, so a misspelt field in one user
  was reported against the whole `users` list;
- `${NAME}` is one definition (`Variable`), allowed wherever `reconciler` reads a variable
  in place of a boolean, a number or a kind (values.py);
- titles pydantic derives from field names are dropped, and a section's description is
  its definition's alone: an editor's hover showed both.
"""

from __future__ import annotations

import json
from typing import Any

from reconciler.manifest.document import Manifest
from reconciler.manifest.merge import add_marker_schemas
from reconciler.manifest.values import VARIABLE_SCHEMA

SCHEMA_DRAFT = "https://json-schema.org/draft/2020-12/schema"
SCHEMA_ID = "urn:reconciler:schema:manifest:1"


def json_schema() -> dict[str, Any]:
    """The schema of one manifest file (or one of its YAML documents)."""
    schema = Manifest.model_json_schema(mode="validation")
    definitions = schema.setdefault("$defs", {})
    tidied = _Tidy(definitions).node(schema)
    tidied["$defs"] = {name: _Tidy(definitions).node(d) for name, d in definitions.items()}
    tidied["$defs"]["Variable"] = dict(VARIABLE_SCHEMA)
    add_marker_schemas(tidied["$defs"])  # `overlay: true`, `drop: true` (merge.py)
    tidied["title"] = "reconciler manifest"
    return {"$schema": SCHEMA_DRAFT, "$id": SCHEMA_ID, **tidied}


def schema_text() -> str:
    """The schema as committed: indented, keys sorted, one trailing newline."""
    return json.dumps(json_schema(), indent=2, sort_keys=True) + "\n"


_VARIABLE_REF = {"$ref": "#/$defs/Variable"}
_KIND_REF = {"$ref": "#/$defs/Kind"}
_NULL = {"type": "null"}


class _Tidy:
    def __init__(self, definitions: dict[str, Any]) -> None:
        self._definitions = definitions

    def node(self, schema: Any) -> Any:
        if isinstance(schema, list):
            return [self.node(item) for item in schema]
        if not isinstance(schema, dict):
            return schema
        if schema == VARIABLE_SCHEMA:
            return dict(_VARIABLE_REF)
        out = {}
        for key, value in schema.items():
            if key == "title":
                continue
            if key in ("properties", "$defs"):
                out[key] = {name: self.node(sub) for name, sub in value.items()}
            elif key == "items" and value == _KIND_REF:  # settings.prune: [${KIND}]
                out[key] = {"anyOf": [_KIND_REF, _VARIABLE_REF]}
            else:
                out[key] = self.node(value)
        if "anyOf" in out:
            out = self._without_null_member(out)
        return out

    def _without_null_member(self, schema: dict[str, Any]) -> dict[str, Any]:
        members = _flatten(schema["anyOf"])
        if _NULL not in members:
            return schema
        rest = {key: value for key, value in schema.items() if key != "anyOf"}
        others = [member for member in members if member != _NULL]
        if len(others) == 1 and "$ref" in others[0] and others[0] != _VARIABLE_REF:
            # An optional section (settings, workspace, a kind's scope): its definition
            # accepts null, once however many places use it; the definition's
            # description is the one an editor shows.
            target = self._definitions[others[0]["$ref"].rsplit("/", 1)[-1]]
            kind = target.get("type", "object")
            target["type"] = kind if isinstance(kind, list) else [kind, "null"]
            rest.pop("description", None)
            return {**others[0], **rest}
        typed = [i for i, member in enumerate(others) if isinstance(member.get("type"), str)]
        plain = [i for i in typed if others[i] == {"type": "string"}]  # text, else the first
        if typed:
            index = (plain or typed)[0]
            others[index] = {**others[index], "type": [others[index]["type"], "null"]}
        else:
            others.append(_NULL)
        if len(others) == 1:
            return {**others[0], **rest}
        return {**rest, "anyOf": others}


def _flatten(members: list[Any]) -> list[Any]:
    flat: list[Any] = []
    for member in members:
        if isinstance(member, dict) and set(member) == {"anyOf"}:
            flat.extend(_flatten(member["anyOf"]))
        else:
            flat.append(member)
    return flat
