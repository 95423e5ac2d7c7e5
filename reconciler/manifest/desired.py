"""`DesiredState`: the merged manifests, and where each entry was written."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, TypeVar

from pydantic import BaseModel

from reconciler.kinds.table import normalise_key, spec
from reconciler.manifest.document import Manifest
from reconciler.manifest.models import Kind, Settings
from reconciler.manifest.problems import Source
from reconciler.manifest.yamltree import Node

Entry = TypeVar("Entry", bound=BaseModel)


@dataclass(frozen=True)
class DesiredState:
    """What the manifests ask for: `manifest` is every file merged.

    `entry_nodes` and `settings_node` remember where entries were written, for
    `location()`; a `DesiredState` built in code (`from_manifest`) has no locations."""

    manifest: Manifest
    files: tuple[str, ...] = ()
    entry_nodes: Mapping[tuple[Kind, str], tuple[Source, Node]] = field(
        default_factory=dict, repr=False
    )
    settings_node: tuple[Source, Node] | None = field(default=None, repr=False)
    # Per entry an overlay refined (merge.py): the overlay entries, in load order; a
    # value they gave is located in their file.
    refinements: Mapping[tuple[Kind, str], list[tuple[Source, Node]]] = field(
        default_factory=dict, repr=False
    )
    # `location()`'s answers: a fleet's environments share one DesiredState, and the
    # planner asks for the same places in each of them (issue 23).
    _located: dict[tuple[Any, ...], str | None] = field(
        default_factory=dict, init=False, repr=False, compare=False
    )

    @classmethod
    def from_manifest(cls, manifest: Manifest) -> DesiredState:
        return cls(manifest)

    @cached_property
    def settings(self) -> Settings:
        """The settings given, or the defaults (built once: the planner asks per entry)."""
        return self.manifest.settings or Settings()

    @property
    def kinds_used(self) -> frozenset[Kind]:
        """The kinds that have at least one entry."""
        return frozenset(kind for kind in Kind if self.entries(kind))

    def entries(self, kind: Kind | str) -> list[BaseModel]:
        """The entries of a kind, in the order they were written (files in load order)."""
        found: Any = self.manifest
        for part in spec(kind).path:  # ("users",), ("workspace", "employees")
            found = getattr(found, part) if found is not None else None
        return list(found or [])

    def entries_as(self, kind: Kind | str, model: type[Entry]) -> list[Entry]:
        """`entries(kind)`, typed as the kind's model (the table's `model`)."""
        return [entry for entry in self.entries(kind) if isinstance(entry, model)]

    def location(self, kind: str, key: str | int, *path: str | int) -> str | None:
        """`file:line:column` of an entry (kinds as `Kind` values, keys as written: case and
        surrounding space do not matter where the kind's keys ignore them), or of a value
        inside it: `location("assets", "SN-1", "assigned_users", 0)`. None when unknown."""
        asked = (kind, key.__class__, key, *path)
        if asked in self._located:
            return self._located[asked]
        found = self._located[asked] = self._locate(kind, key, path)
        return found

    def _locate(self, kind: str, key: str | int, path: tuple[str | int, ...]) -> str | None:
        try:
            entry = (Kind(kind), normalise_key(Kind(kind), key, self.settings.employee_key) or "")
        except ValueError:  # not a kind
            return None
        found = self.entry_nodes.get(entry)
        for overlay in self.refinements.get(entry, ()):
            if path and _inside(overlay, path) is not None:
                found = overlay  # the last overlay that gave this value
        return _inside(found, path)

    def refined_at(self, kind: str, key: str | int) -> list[str]:
        """`file:line:column` of each overlay that refined an entry (none: not refined)."""
        try:
            entry = (Kind(kind), normalise_key(Kind(kind), key, self.settings.employee_key) or "")
        except ValueError:
            return []
        return [source.where(node) for source, node in self.refinements.get(entry, ())]

    def settings_location(self, *path: str | int) -> str | None:
        """`file:line:column` of the settings, or of a value inside them:
        `settings_location("prune", 0)`."""
        return _inside(self.settings_node, path)


def _inside(found: tuple[Source, Node] | None, path: tuple[str | int, ...]) -> str | None:
    if found is None:
        return None
    source, node = found
    for part in path:
        child = node.child(part)
        if child is None:
            return None
        node = child
    return source.where(node)
