"""Validating one YAML document with the `Manifest` model, and turning pydantic's errors into
messages at the node they are about: the key of an unknown field, the entry that lacks a
required field, the value that has the wrong type.

pydantic reports a value that fits no member of a union (a custom field value) once per
member, with the member's name in the error's location. Those are folded into one message
("expected text, a number, ..."), unless the value had the shape of one member (a mapping,
for `{option_id: N}`): then that member's own errors say more, and only they are shown.
"""

from __future__ import annotations

import types
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import date, datetime
from typing import Annotated, Any, Union, get_args, get_origin

from pydantic import BaseModel, ValidationError
from pydantic_core import ErrorDetails

from reconciler.kinds.table import KINDS
from reconciler.manifest.document import Manifest
from reconciler.manifest.models import PREVIOUSLY, CustomFieldOptions, flat_form
from reconciler.manifest.values import mark_variables
from reconciler.manifest.yamltree import Node

Part = str | int

# How union members are named in messages, in the order they are listed.
_ALTERNATIVES = {
    "str": "text",
    "float": "a number",
    "date": "a date",
    "bool": "true/false",
    "OptionId": "{option_id: N}",
}


def validate_document(root: Node) -> tuple[Manifest | None, list[tuple[Node, str]]]:
    """The document as a `Manifest` (None when it is not one), and the problems: each
    with the node it is about."""
    if not root.is_mapping:
        kinds = ", ".join(Manifest.model_fields)
        return None, [
            (root, f"a manifest must be a mapping of kinds ({kinds}), not {_describe(root)}")
        ]
    try:
        return Manifest.model_validate(mark_variables(root)), []
    except ValidationError as exc:
        return None, explain(root, exc.errors(include_url=False))


@dataclass
class _Located:
    error: ErrorDetails
    node: Node  # the deepest node the error's location reaches
    path: list[Part]  # the location without union member names, for display
    parent: Node | None  # the mapping holding `node`, when `node` is one of its values
    union_site: tuple[Part, ...] | None = None  # where a union member's name was skipped
    member: str = ""  # that member's name
    deep: bool = False  # reached into the value past a union member's name


def explain(root: Node, errors: Iterable[ErrorDetails]) -> list[tuple[Node, str]]:
    located = [_locate(root, error) for error in errors]
    sites: dict[tuple[Part, ...], list[_Located]] = {}
    shown: list[tuple[Node, str]] = []
    for item in located:
        if item.union_site is None:
            shown.append(_message(item))
        else:
            sites.setdefault(item.union_site, []).append(item)
    for members in sites.values():
        deep = [item for item in members if item.deep]
        if deep:
            shown.extend(_message(item) for item in deep)
            continue
        first = members[0]
        names = {item.member for item in members}
        if "float" in names:
            names.discard("int")  # "a number" says it
        order = list(_ALTERNATIVES)
        ordered = sorted(names, key=lambda n: order.index(n) if n in order else len(order))
        wanted = _either([_ALTERNATIVES.get(name, name) for name in ordered])
        message = f"expected {wanted}, found {_describe(first.node)}"
        shown.append((first.node, _at(first.path, message)))
    return shown


def _locate(root: Node, error: ErrorDetails) -> _Located:
    loc = error["loc"]
    item = _Located(error, root, [], None)
    for index, part in enumerate(loc):
        item.deep = item.union_site is not None
        child = item.node.child(part)
        if child is not None:
            item.parent = item.node if item.node.is_mapping else None
            item.node = child
            item.path.append(part)
        elif part == "[key]" and item.parent is not None and item.parent.keys:
            item.node = item.parent.keys[str(item.path[-1])]
        elif index == len(loc) - 1 and error["type"] == "missing":
            pass  # the name of the field the mapping lacks
        elif item.union_site is None:
            item.union_site, item.member = tuple(item.path), str(part)  # a union member's name
    return item


def _message(item: _Located) -> tuple[Node, str]:
    error, node, path = item.error, item.node, item.path
    kind = error["type"]
    if kind == "missing":
        field = error["loc"][-1]
        return node, _at(path, f"missing required field '{field}'")
    if kind == "extra_forbidden" and path:
        name = str(path[-1])
        if item.parent is not None and item.parent.keys:
            node = item.parent.keys.get(name, node)
        return node, _unknown_field(path[:-1], name)
    if error["loc"] and error["loc"][-1] == "[key]":
        key = node.raw if node.raw is not None else str(node.value)
        return node, _at(path[:-1], f"key '{key}': {_value_message(error, node)}")
    return node, _at(path, _value_message(error, node))


def _value_message(error: ErrorDetails, node: Node) -> str:
    kind = error["type"]
    if kind == "string_type":
        if node.raw is None or node.value is None:
            return f"expected text, found {_describe(node)}"
        return (
            f'expected text, found {_describe(node)}; quote it to keep it as written: "{node.raw}"'
        )
    if kind == "string_too_short" and (error.get("ctx") or {}).get("min_length") == 1:
        return "must not be empty"
    if kind in ("list_type", "model_type", "dict_type", "model_attributes_type"):
        wanted = "a list" if kind == "list_type" else "a mapping"
        return f"expected {wanted}, found {_describe(node)}"
    if kind == "enum":
        # `Kind` and the users' `list_mode` are the enums: name the value, it is a name
        # the user wrote, not a secret.
        expected = str((error.get("ctx") or {}).get("expected", "")).replace("'", "")
        if error["loc"][-1:] == ("list_mode",):
            return f"unknown list mode '{error['input']}' (the API's list modes: {expected})"
        return f"unknown kind '{error['input']}' (the kinds: {expected})"
    message = error["msg"]
    return message[:1].lower() + message[1:]


def _unknown_field(path: Sequence[Part], name: str) -> str:
    model = _model_at(path)
    refused = _not_renamable(model) if name == PREVIOUSLY else None
    if refused is not None:
        return _at(path, refused)
    keyed_by_kind = model is Manifest or model is CustomFieldOptions
    message = f"unknown {'kind' if keyed_by_kind else 'field'} '{name}'"
    if model is not None:
        from difflib import get_close_matches  # only for a misspelt name

        # As written: a field's alias where it has one (`workspace.employees`).
        names = [f.alias or n for n, f in model.model_fields.items()]
        # A field name that resembles a kind (`Site`, `assets`) is no misspelt kind.
        cutoff = 0.8 if model is CustomFieldOptions else 0.6
        close = get_close_matches(name, names, n=1, cutoff=cutoff)
        what = "kinds" if keyed_by_kind else "fields"
        if close:
            message += f"; did you mean '{close[0]}'?"
        elif model is CustomFieldOptions:  # most likely a field name: the flat form
            return _at(path, flat_form(name))
        else:
            message += f" (the {what}: {', '.join(names)})"
    return _at(path, message)


def _not_renamable(model: type[BaseModel] | None) -> str | None:
    """Why `previously:` cannot be on an entry of `model`'s kind (docs/renaming.md)."""
    row = next((row for row in KINDS if row.model is model and not row.renamable), None)
    if row is None:
        return None
    return (
        f"'previously' is not allowed on {row.name}: the API cannot rename "
        f"{row.name.replace('_', ' ')}; "
        f"{row.rename_instead}"
    )


def _model_at(path: Sequence[Part]) -> type[BaseModel] | None:
    """The model whose fields a mapping at `path` holds (through lists, dicts, unions)."""
    current: Any = Manifest
    for part in path:
        current = _step(current, part)
        if current is None:
            return None
    models = [member for member in _members(current) if _is_model(member)]
    return models[0] if models else None


def _step(annotation: Any, part: Part) -> Any:
    for member in _members(annotation):
        origin = get_origin(member)
        if _is_model(member) and isinstance(part, str) and part in member.model_fields:
            return member.model_fields[part].annotation
        if origin is list and isinstance(part, int):
            return get_args(member)[0]
        if origin is dict and isinstance(part, str):
            return get_args(member)[1]
    return None


def _members(annotation: Any) -> list[Any]:
    origin = get_origin(annotation)
    if origin is Annotated:
        return _members(get_args(annotation)[0])
    if origin is Union or origin is types.UnionType:
        return [member for arg in get_args(annotation) for member in _members(arg)]
    return [annotation]


def _is_model(annotation: Any) -> bool:
    return isinstance(annotation, type) and issubclass(annotation, BaseModel)


def _at(path: Sequence[Part], message: str) -> str:
    shown = ""
    for part in path:
        if isinstance(part, int):
            shown += f"[{part}]"
        elif part.isidentifier():
            shown += f".{part}" if shown else part
        else:
            shown += '["' + part.replace('"', '\\"') + '"]'
    return f"{shown}: {message}" if shown else message


def _describe(node: Node) -> str:
    value = node.value
    if node.is_mapping:
        return "a mapping"
    if isinstance(value, list):
        return "a list"
    if value is None:
        return "nothing (null)"
    if isinstance(value, bool):
        return f"{str(value).lower()}"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, datetime):  # a YAML timestamp: a date to Python, but not a day
        return "a date and time"
    if isinstance(value, date):
        return "a date"
    return "text"


def _either(options: list[str]) -> str:
    return options[0] if len(options) == 1 else f"{', '.join(options[:-1])} or {options[-1]}"
