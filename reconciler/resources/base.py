"""What every resource module provides, and the context they plan in.

A resource module (one per managed kind, plus the `custom_fields` catalogue) is an object
with:
- `kind`: its name (`companies`, `workspace.employees`, ...);
- `needs(desired)`: whether a run with these manifests must read it;
- `async read(reader)`: fetch and parse its live state (the only I/O it does), through
  `reader.helpdesk`/`reader.workspace` and with access to other kinds' live state
  (`await reader.get("departments")`), so that per-object reads happen only for the
  objects whose manifest entries need them;
- `diff(ctx)`: pure; compares desired and live and returns its changes and diagnostics.

Live state of a kind is any object with `digest_data()` (JSON-able, stable, free of
volatile fields such as LastSeen: the plan's `live_digest` is computed from it) and
`__len__` (the number of live objects, for the safety brake).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeVar

from reconciler.changes import Change, Diagnostic, Ref, address
from reconciler.manifest import DesiredState
from reconciler.manifest.kinds import norm_key

T = TypeVar("T")

__all__ = ["KindPlan", "LiveData", "PlanContext", "Reader", "Resource", "norm_key"]


class LiveData(Protocol):
    def digest_data(self) -> Any: ...

    def __len__(self) -> int:
        """The number of live objects (what the safety brake counts)."""
        ...


class Reader(Protocol):
    """What `read` gets: the clients (None when that service is not configured) and the
    other kinds' live state."""

    @property
    def helpdesk(self) -> Any: ...

    @property
    def workspace(self) -> Any: ...

    @property
    def desired(self) -> DesiredState: ...

    # The kinds being pruned: their reads cover unlisted objects too.
    prune: frozenset[str]

    async def get(self, kind: str) -> Any: ...


class Resource(Protocol):
    kind: str
    service: str  # "helpdesk" or "workspace"

    def needs(self, desired: DesiredState) -> bool: ...

    async def read(self, reader: Reader) -> LiveData: ...

    def diff(self, ctx: PlanContext) -> KindPlan: ...


@dataclass
class KindPlan:
    changes: list[Change] = field(default_factory=list)
    diagnostics: list[Diagnostic] = field(default_factory=list)


@dataclass
class PlanContext:
    """Everything a `diff` may look at. `creating` fills up as kinds are planned in
    dependency order, so that a user can refer to a company the plan creates."""

    desired: DesiredState
    live: Mapping[str, Any]
    prune: frozenset[str]
    creating: dict[tuple[str, str], str] = field(default_factory=dict)
    _ignored: dict[str, frozenset[str]] = field(default_factory=dict, repr=False)

    def live_of(self, kind: str, cls: type[T]) -> T | None:
        value = self.live.get(kind)
        return value if isinstance(value, cls) else None

    def prunes(self, kind: str) -> bool:
        return kind in self.prune

    def ignored(self, kind: str) -> frozenset[str]:
        found = self._ignored.get(kind)
        if found is None:
            names = self.desired.settings.ignore_fields.get(kind, [])  # type: ignore[call-overload]
            found = self._ignored[kind] = frozenset(names)
        return found

    def will_create(self, kind: str, key: str) -> None:
        self.creating[(kind, norm_key(key))] = address(kind, key)

    def created_ref(self, kind: str, key: str) -> Ref | None:
        found = self.creating.get((kind, norm_key(key)))
        return Ref(found) if found else None

    def location(self, kind: str, key: str) -> str | None:
        return self.desired.location(kind, key)
