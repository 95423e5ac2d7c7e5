"""Overlays (docs/environments.md): a later file may refine an entry an earlier file
wrote (an environment's own files over the shared baseline), or drop it, by key, with an
explicit marker on the entry:

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
fields, a marker that is not `true`) are reported at the marker."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

from reconciler.kinds.table import KINDS, key_field, normalise_key
from reconciler.manifest.merge import entry_lists, given_employee_key
from reconciler.manifest.models import Kind
from reconciler.manifest.problems import Problems, Source
from reconciler.manifest.yamltree import Node, Report

OVERLAY = "overlay"
DROP = "drop"
_MERGED_BY_NAME = ("custom_fields",)  # mappings merged key by key, not replaced

EntryKey = tuple[Kind, str]  # pragma: no mutate
Refinements = dict[EntryKey, list[tuple[Source, Node]]]  # pragma: no mutate


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
            kept = []
            for entry in listed.value:
                marker = _marker(entry, source, problems) if entry.is_mapping else None
                key = _key(kind, entry, employee_key) if entry.is_mapping else None
                if marker is None or key is None:
                    kept.append(entry)
                    if key is not None:
                        seen.setdefault((kind, key), (entry, listed))
                    continue
                base = seen.get((kind, key))
                if base is None:
                    problems.at(
                        source,
                        entry.keys[marker] if entry.keys else entry,
                        f"{kind.value}: {marker} of '{key}', which no earlier file writes "
                        "(an overlay refines an entry of an earlier path, e.g. the baseline)",
                    )
                elif marker == DROP:
                    _drop(kind, key, entry, base, source, seen, problems, employee_key)
                else:
                    _merge(base[0], entry, key_field(kind, employee_key))
                    refined.setdefault((kind, key), []).append((source, entry))
            listed.value = kept
    return refined


def reporters(
    documents: Sequence[tuple[Source, Node]], refined: Refinements, problems: Problems
) -> list[Report]:
    """Each document's reporter for validating it. A value an overlay gave now sits in an
    earlier file's entry: a problem there is reported in the overlay's file, at the place
    it was written (unless a node of the earlier file itself starts at that place)."""
    given: dict[tuple[int, int], Source] = {}
    moved: set[int] = set()
    for overlays in refined.values():
        for source, entry in overlays:
            for node in _nodes(entry):
                given[(node.line, node.column)] = source
                moved.add(id(node))
    found = []
    for source, root in documents:
        report = problems.reporter(source)
        if given:
            own = {(node.line, node.column) for node in _nodes(root) if id(node) not in moved}
            report = _rerouted(report, given, own, problems)
        found.append(report)
    return found


def _rerouted(
    report: Report,
    given: dict[tuple[int, int], Source],
    own: set[tuple[int, int]],
    problems: Problems,
) -> Report:
    def rerouted(line: int, column: int, message: str) -> None:
        source = given.get((line, column)) if (line, column) not in own else None
        if source is None:
            report(line, column, message)
        else:
            problems.add(source, line, column, message)

    return rerouted


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


def _drop(
    kind: Kind,
    key: str,
    entry: Node,
    base: tuple[Node, Node],
    source: Source,
    seen: dict[EntryKey, tuple[Node, Node]],
    problems: Problems,
    employee_key: str,
) -> None:
    extra = [n for n in entry.value if n not in (DROP, key_field(kind, employee_key))]
    if extra:
        assert entry.keys is not None
        problems.at(
            source,
            entry.keys[extra[0]],
            f"{kind.value}: a drop names only the key; '{extra[0]}' has no effect here",
        )
        return
    listed = base[1]
    listed.value = [other for other in listed.value if other is not base[0]]
    del seen[(kind, key)]


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


def _key(kind: Kind, entry: Node, employee_key: str) -> str | None:
    value = entry.child(key_field(kind, employee_key))
    return None if value is None else normalise_key(kind, value.value, employee_key)


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
