"""Joining the documents of every file into one manifest.

Overlays (docs/environments.md) come first: a later file may refine an entry an earlier
file wrote (an environment's own files over the shared baseline), or drop it, by key,
with an explicit marker on the entry:

    users:
      - username: msp-oncall      # the baseline's entry, refined here
        overlay: true
        location: Manchester      # fields given replace the baseline's; lists replace lists
        custom_fields: {Shift: Night}   # custom fields merge by field name
      - username: msp-intern
        drop: true                # the baseline's entry is left out for this environment

The markers work on the YAML nodes before validation, so that the merged entry is
validated as one entry and every value keeps the line it was written on. Problems (an
overlay or drop with no earlier entry of that key, both markers, a drop that gives
fields, a marker that is not `true`) are reported at the marker.

Then the validated documents are merged (`merge`): the same key twice is a problem naming
both places, `settings` may appear once, and every employee needs its key field. Keys
are read from the YAML nodes, not from the validated models, so that duplicates are
found in the same run as the schema problems of an invalid file.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from reconciler.kinds.table import KINDS, key_field, normalise_key, spec
from reconciler.manifest.document import Manifest, Workspace
from reconciler.manifest.models import Kind
from reconciler.manifest.problems import Problems, Source
from reconciler.manifest.yamltree import Node

EntryKey = tuple[Kind, str]  # (kind, normalised key)


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


OVERLAY = "overlay"
DROP = "drop"
_MERGED_BY_NAME = ("custom_fields",)  # mappings merged key by key, not replaced

Refinements = dict[EntryKey, list[tuple[Source, Node]]]


def apply_overlays(documents: Sequence[tuple[Source, Node]], problems: Problems) -> Refinements:
    """Merge every marked entry into the earlier entry of its key (or drop that entry),
    in load order; the marked entries leave their lists. Returns, per refined entry, the
    overlay entries that refined it, with their sources (for locations)."""
    settings = (given_employee_key(root.child("settings")) for _, root in documents)
    employee_key = next(filter(None, settings), "email")
    seen: dict[EntryKey, tuple[Node, Node]] = {}  # key -> (entry, the list holding it)
    refined: Refinements = {}
    for source, root in documents:
        for kind, listed in entry_lists(root):
            key_name = key_field(kind, employee_key)
            kept = []
            for entry in listed.value:
                marker = _marker(entry, source, problems) if entry.is_mapping else None
                written = entry.child(key_name)
                key = None if written is None else normalise_key(kind, written.value, employee_key)
                if marker is None or key is None:
                    kept.append(entry)
                    if key is not None:
                        seen.setdefault((kind, key), (entry, listed))
                    continue
                assert entry.keys is not None  # a marked entry is a mapping
                base = seen.get((kind, key))
                if base is None:
                    problems.at(
                        source,
                        entry.keys[marker],
                        f"{kind.value}: {marker} of '{key}', which no earlier file writes "
                        "(an overlay refines an entry of an earlier path, e.g. the baseline)",
                    )
                elif marker == DROP and (
                    extra := [n for n in entry.value if n not in (DROP, key_name)]
                ):
                    problems.at(
                        source,
                        entry.keys[extra[0]],
                        f"{kind.value}: a drop names only the key; '{extra[0]}' has no effect here",
                    )
                elif marker == DROP:
                    base[1].value = [other for other in base[1].value if other is not base[0]]
                    del seen[(kind, key)]
                else:
                    _merge(base[0], entry, key_name)
                    refined.setdefault((kind, key), []).append((source, entry))
            listed.value = kept
    return refined


def overlay_sources(refined: Refinements) -> dict[int, Source]:
    """The file of each node an overlay gave, by the node's id: the value now sits in an
    earlier file's entry, but a problem with it is reported where it was written."""
    return {
        id(node): source
        for overlays in refined.values()
        for source, entry in overlays
        for node in _nodes(entry)
    }


def _nodes(root: Node) -> Iterator[Node]:
    """Every node under `root` (keys too), each once (aliases share nodes)."""
    seen: set[int] = set()
    stack = [root]
    while stack:
        node = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        yield node
        if isinstance(node.value, dict):
            stack.extend(node.value.values())
            stack.extend((node.keys or {}).values())
        elif isinstance(node.value, list):
            stack.extend(node.value)


def _marker(entry: Node, source: Source, problems: Problems) -> str | None:
    given = [name for name in (OVERLAY, DROP) if name in entry.value]
    for name in given:
        if entry.value[name].value is not True:
            problems.at(source, entry.value[name], f"'{name}' takes true (or is left out)")
            return None
    if len(given) == 2:
        assert entry.keys is not None
        problems.at(source, entry.keys[DROP], "an entry is an overlay or a drop, not both")
        return None
    return given[0] if given else None


def _merge(base: Node, overlay: Node, key_name: str) -> None:
    assert base.keys is not None and overlay.keys is not None
    for name, node in overlay.value.items():
        if name in (OVERLAY, key_name):
            continue
        before = base.value.get(name)
        if name in _MERGED_BY_NAME and before is not None and before.is_mapping and node.is_mapping:
            assert before.keys is not None and node.keys is not None
            before.value = {**before.value, **node.value}
            before.keys = {**before.keys, **node.keys}
            continue
        base.value[name] = node
        base.keys[name] = overlay.keys[name]


_MARKED = {"anyOf": [{"required": [OVERLAY]}, {"required": [DROP]}]}
_MARKER_SCHEMAS = {
    OVERLAY: {
        "const": True,
        "description": "Refine the entry of this key that an earlier file (the "
        "baseline) writes, for these manifests only. The fields given replace its values "
        "(lists are replaced whole, custom_fields merge by field name); the others keep "
        "the earlier file's. See docs/environments.md, Overlays.",
    },
    DROP: {
        "const": True,
        "description": "Leave out the entry of this key that an earlier file (the "
        "baseline) writes, for these manifests only. Give only the key beside it. See "
        "docs/environments.md, Overlays.",
    },
}


def add_marker_schemas(definitions: dict[str, Any]) -> None:
    """Teach the manifest JSON Schema (schema.py) the markers, where `apply_overlays` takes
    them: on an entry of every kind's list, and nowhere else. A marked entry needs only
    its key (the rest comes from the earlier entry); a drop gives nothing but its key."""
    for row in KINDS:
        definition = definitions[row.model.__name__]
        definition.setdefault("properties", {}).update(
            {name: dict(marker) for name, marker in _MARKER_SCHEMAS.items()}
        )
        required = definition.pop("required", [])
        if row.key_field is None:  # employees: the key is settings.employee_key
            only_key: dict[str, Any] = {"maxProperties": 2}
        else:
            only_key = {"propertyNames": {"enum": [row.key_field, DROP]}}
            definition["required"] = [row.key_field]
        rest = [name for name in required if name != row.key_field]
        if rest:  # required of a whole entry, not of one that refines an earlier entry
            definition["if"] = _MARKED
            definition["else"] = {"required": rest}
        definition["dependentSchemas"] = {DROP: only_key}
