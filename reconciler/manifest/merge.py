"""Merging the documents of every file into one manifest: the same key twice is a problem
naming both places, `settings` may appear once, and every employee needs its key field.

Keys are read from the YAML nodes, not from the validated models, so that duplicates are
found in the same run as the schema problems of an invalid file.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from reconciler.kinds.table import key_field, normalise_key, spec
from reconciler.manifest.document import Manifest, Workspace
from reconciler.manifest.models import Kind
from reconciler.manifest.problems import Problems, Source
from reconciler.manifest.yamltree import Node

EntryKey = tuple[Kind, str]  # (kind, normalised key)  # pragma: no mutate


@dataclass(frozen=True)
class Document:
    """One YAML document of a manifest file; `manifest` is None when it is not valid."""

    source: Source
    root: Node
    manifest: Manifest | None


@dataclass
class Merged:
    manifest: Manifest
    entries: dict[EntryKey, tuple[Source, Node]] = field(default_factory=dict)
    settings: tuple[Source, Node] | None = None


def merge(documents: Sequence[Document], problems: Problems) -> Merged | None:
    """The merged manifest, or None when a document is not a valid manifest (its problems
    reported before). The problems found here (an entry twice, `settings` twice) are only
    reported: the caller raises on every problem before it uses what is returned."""
    settings = _find_settings(documents, problems)
    employee_key = given_employee_key(settings[1] if settings else None) or "email"
    entries: dict[EntryKey, tuple[Source, Node]] = {}
    for document in documents:
        for kind, listed in entry_lists(document.root):
            for entry in listed.value:
                if entry.is_mapping:
                    _add_entry(entries, kind, entry, document.source, employee_key, problems)
    if any(document.manifest is None for document in documents):
        return None
    return Merged(_merged_manifest(documents), entries, settings)


def _find_settings(documents: Sequence[Document], problems: Problems) -> tuple[Source, Node] | None:
    given: list[tuple[Source, Node, Node]] = []  # (file, the key `settings`, its value)
    for document in documents:
        node = document.root.child("settings")
        if node is None or node.value is None:
            continue
        key = document.root.keys["settings"] if document.root.keys else node
        given.append((document.source, key, node))
    for source, key, _ in given[1:]:
        problems.at(
            source,
            key,
            f"settings given twice (first at {given[0][0].where(given[0][1])}); there may be "
            "one `settings` across all manifest files",
        )
    return (given[0][0], given[0][2]) if given else None


def given_employee_key(settings: Node | None) -> str | None:
    """`settings.employee_key` when it is a non-empty text (else validation reports it)."""
    value = settings.child("employee_key") if settings is not None else None
    if value is not None and isinstance(value.value, str) and value.value.strip():
        return value.value.strip()
    return None


def entry_lists(root: Node) -> list[tuple[Kind, Node]]:
    """Each kind's list of entries in a document: (kind, the node of the list)."""
    found = []
    for kind in Kind:
        listed: Node | None = root
        for part in spec(kind).path:  # ("users",), ("workspace", "employees")
            listed = listed.child(part) if listed is not None else None
        if listed is not None and isinstance(listed.value, list):
            found.append((kind, listed))
    return found


def _add_entry(
    entries: dict[EntryKey, tuple[Source, Node]],
    kind: Kind,
    entry: Node,
    source: Source,
    employee_key: str,
    problems: Problems,
) -> None:
    name = key_field(kind, employee_key)
    value = entry.child(name)
    configured = spec(kind).key_field is None  # keyed by `settings.employee_key`
    if value is None and configured:
        problems.at(
            source,
            entry,
            f"{kind.value}: an {spec(kind).noun} without '{name}', its key (settings.employee_key)",
        )
        return
    key = normalise_key(kind, value.value if value else None, employee_key)
    if key is None:
        checked_by_model = name == "email" and value is not None and value.value is not None
        if configured and not checked_by_model:  # the model: an e-mail's form
            problems.at(source, value or entry, f"'{name}' must be a non-empty text or number")
        return  # any other kind's key is checked by validation
    first = entries.get((kind, key))
    if first is not None:
        written = value.raw if value and value.raw is not None else key
        problems.at(
            source,
            entry,
            f"duplicate {kind.value} entry '{written}' (first at {first[0].where(first[1])})",
        )
        return
    entries[(kind, key)] = (source, entry)


def _merged_manifest(documents: Sequence[Document]) -> Manifest:
    manifests = [document.manifest for document in documents if document.manifest is not None]
    merged: dict[str, Any] = {}
    for kind in Kind:
        if len(spec(kind).path) == 1:  # workspace.employees: with the workspace below
            merged[kind.value] = [entry for m in manifests for entry in getattr(m, kind.value)]
    settings = [m.settings for m in manifests if m.settings is not None]
    merged["settings"] = settings[0] if settings else None
    workspaces = [m.workspace for m in manifests if m.workspace is not None]
    if workspaces:
        # Each list of the workspace section (its kinds), concatenated in load order.
        merged["workspace"] = Workspace(
            **{
                name: [e for w in workspaces for e in getattr(w, name)]
                for name in Workspace.model_fields
            }
        )
    # The entries are validated models already; pydantic keeps instances as they are.
    return Manifest.model_validate(merged)
