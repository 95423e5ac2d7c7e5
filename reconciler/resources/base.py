"""What every resource provides, and the context they read and plan in.

Every managed kind has the same shape, in its package `kinds/<kind>/`: `reader.py` with
its live state (the `Live*` types), the parsing of API answers into it and its reader (the
only I/O), and `planner.py` with its resource: an object with
- `kind`, `service`, and `uses` (the kinds its full read needs read too);
- `needs(desired)`: whether a run with these manifests must read it;
- `async read(reader)`: the kind's reader, in one of two modes (see `Reader`);
- `diff(ctx)`: pure; compares desired and live and returns its changes and diagnostics;
- `async locate(change, helpdesk, workspace, desired)` (kinds whose creates are not
  idempotent): the id of an object a create whose answer was lost may have made.

Live state of a kind is any object with `digest_data()` (JSON-able, stable, free of
volatile fields such as LastSeen: the plan's `live_digest` is computed from it),
`__len__` (the number of live objects, for the safety brake) and `keys()` (the normalised
keys of the live objects read).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any, ClassVar, Generic, Protocol, Self, TypeVar

from reconciler.kinds.table import BY_NAME, service_of
from reconciler.manifest.desired import DesiredState
from reconciler.manifest.kinds import norm_key
from reconciler.manifest.models import Kind
from reconciler.plans import Action, Change, Diagnostic, Operation, Ref, address, error, warning

T = TypeVar("T")
ADD_OR_DELETE = "add it to the manifests, or delete it in the helpdesk's admin panel"

__all__ = [
    "ByName",
    "KindPlan",
    "KindResource",
    "LiveData",
    "PlanContext",
    "Reader",
    "Resource",
    "norm_key",
]


class LiveData(Protocol):
    """Those keyed by name also give `named_ids()`: (name, id) of each live object, for
    the lookalike warnings (live/lookalikes.py) and the renames (planning/renames.py)."""

    def digest_data(self) -> Any: ...

    def __len__(self) -> int:
        """The number of live objects (what the safety brake counts)."""
        ...

    def keys(self) -> frozenset[str]:
        """The normalised keys of the live objects read (all of them after a full read)."""
        ...


class Identified(Protocol):
    @property
    def id(self) -> int: ...


Obj = TypeVar("Obj", bound=Identified)


class Keyed:
    """A live state (a frozen dataclass) of the kind `kind`, keyed by normalised key."""

    __dataclass_fields__: ClassVar[dict[str, Any]]
    kind: ClassVar[str]
    by_key: Mapping[str, Any]

    def keys(self) -> frozenset[str]:
        return frozenset(self.by_key)

    def renamed(self, kind: str, old: str, new: str, written: str) -> Self:
        """The object keyed `old` found under `new` (both normalised; `written`: as the
        manifests write it) when it is of this kind (planning/renames.py); its record keeps
        its key, which the update changes."""
        if kind != self.kind or old not in self.by_key:
            return self
        by_key = {k: v for k, v in self.by_key.items() if k != old}
        return replace(self, by_key={**by_key, new: self.by_key[old]})


class ByName(Keyed, Generic[Obj]):
    """The lookups of a live state keyed by name (`norm_key`): its objects in scope
    (`by_key`), and those outside `settings.scope` (`outside`), kept only so that a
    reference to one resolves to its id. A subclass names the field that holds the name."""

    by_key: Mapping[str, Obj]
    outside: Mapping[str, Obj]
    name_field: ClassVar[str]

    def __len__(self) -> int:
        return len(self.by_key)

    def get(self, name: str) -> Obj | None:
        return self.by_key.get(norm_key(name))

    def id_of(self, name: str) -> int | None:
        found = self.get(name) or self.outside.get(norm_key(name))
        return None if found is None else found.id

    def names(self) -> list[str]:
        return [getattr(o, self.name_field) for o in self.by_key.values()]

    def named_ids(self) -> Iterable[tuple[str, object]]:
        """(name, id) of each live object, for the lookalike warnings (live/lookalikes.py)."""
        return ((getattr(o, self.name_field), o.id) for o in self.by_key.values())

    def field_values(self, field: str) -> Iterable[tuple[str, str, object, Any]]:
        """(normalised key, name as live, id, value of `field`) of every live object in
        scope: what says a create may be one of them renamed (planning/renames.py)."""
        name = self.name_field
        return ((k, getattr(o, name), o.id, getattr(o, field)) for k, o in self.by_key.items())


class Reader(Protocol):
    """What `read` gets: the clients (None when that service is not configured), the other
    kinds' live state, and what to read. Two modes, per kind:
    - what these entries need (`plan`): the list, and per-object details only for the
      objects whose manifest entries (or `prune`) need them;
    - everything of this kind (`full(kind)`: export, unmanaged objects): every object with
      its details, those of the objects `wants(kind, key)` selects, and for a kind that
      cannot be listed (rules) the keys `named(kind)` gives."""

    @property
    def helpdesk(self) -> Any: ...

    @property
    def workspace(self) -> Any: ...

    @property
    def desired(self) -> DesiredState: ...

    # The kinds being pruned: their reads cover unlisted objects too.
    prune: frozenset[str]

    def full(self, kind: str) -> bool: ...

    def wants(self, kind: str, key: Any) -> bool: ...

    def named(self, kind: str) -> tuple[str, ...]: ...

    async def get(self, kind: str) -> Any: ...


class Resource(Protocol):
    kind: str
    uses: tuple[str, ...]  # the kinds a full read of this one awaits

    @property
    def service(self) -> str:
        """ "helpdesk" or "workspace"."""
        ...

    def needs(self, desired: DesiredState) -> bool: ...

    async def read(self, reader: Reader) -> LiveData: ...

    def diff(self, ctx: PlanContext) -> KindPlan: ...


class KindResource:
    """What the resources of managed kinds share: the service comes from the table of
    kinds; a subclass sets `kind` and, when a full read of it needs other kinds, `uses`."""

    kind: str
    uses: tuple[str, ...] = ()

    @property
    def service(self) -> str:
        return service_of(self.kind)

    def needs(self, desired: DesiredState) -> bool:
        """Read when the manifests list the kind (only manifests that list a kind manage
        it: `--prune` with no entry must not remove every live object), or when another
        kind's plan needs its live state (the table's `read_for`)."""
        return (
            bool(desired.entries(self.kind))
            or any(
                any(field is None or getattr(entry, field) for entry in desired.entries(other))
                for other, field in BY_NAME[self.kind].read_for
            )
            or _named_by_scope(self.kind, desired)
        )


def post(call: str, params: dict[str, Any], description: str = "", **create: Any) -> Operation:
    """The helpdesk's `POST /api/<call>` (`create`: its `creates` and `idempotent`)."""
    return Operation("helpdesk", "POST", f"/api/{call}", params, description=description, **create)


def ignored(desired: DesiredState, kind: str) -> frozenset[str]:
    """The fields `settings.ignore_fields` names for `kind` (each kind's `diff` and
    `read` asks once, so nothing is cached)."""
    return frozenset(desired.settings.ignore_fields.get(Kind(kind), []))


def _named_by_scope(kind: str, desired: DesiredState) -> bool:
    """Whether a scope filters by objects of `kind` (the users' or assets' `companies`,
    `departments`): their ids are read even when no entry names one."""
    scope = desired.settings.scope
    return any(getattr(s, kind, None) for s in (scope.of(k.value) for k in Kind) if s)


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

    @property
    def employee_key(self) -> str:
        return self.desired.settings.employee_key

    def live_of(self, kind: str, cls: type[T]) -> T | None:
        value = self.live.get(kind)
        return value if isinstance(value, cls) else None

    def prunes(self, kind: str) -> bool:
        return kind in self.prune

    def ignored(self, kind: str) -> frozenset[str]:
        return ignored(self.desired, kind)

    def will_create(self, kind: str, key: str) -> None:
        self.creating[(kind, norm_key(key))] = address(kind, key)

    def created_ref(self, kind: str, key: str) -> Ref | None:
        found = self.creating.get((kind, norm_key(key)))
        return Ref(found) if found else None

    def resolve(self, kind: str, name: str) -> int | Ref | None:
        """What a reference to the `kind` named `name` stands for: the live object's id,
        the `Ref` of the object this plan creates (its id, known after apply), or None
        when it is neither (the caller says why that is wrong, see `known_names`)."""
        live = self.live.get(kind)
        found = live.id_of(name) if live is not None and hasattr(live, "id_of") else None
        return found if found is not None else self.created_ref(kind, name)

    def live_names(self, kind: str) -> list[str]:
        """The names of the live objects of `kind` (for the "did you mean" of an unknown
        reference)."""
        live = self.live.get(kind)
        return list(live.names()) if live is not None and hasattr(live, "names") else []

    def known_names(self, kind: str) -> list[str]:
        """The names a reference to `kind` may use: live, then in the manifests."""
        key = BY_NAME[kind].key_field_for(self.desired.settings.employee_key)
        written = [str(getattr(entry, key)) for entry in self.desired.entries(kind)]
        return self.live_names(kind) + written

    def location(self, kind: str, key: str) -> str | None:
        return self.desired.location(kind, key)


class Planner:
    """One run's plan of one kind, as the kinds' planners share it: the context, the
    fields `ignore_fields` leaves out, the result, and how an entry's change or problem
    is written down."""

    def __init__(self, ctx: PlanContext, kind: str) -> None:
        self.ctx = ctx
        self.kind = kind
        self.ignored = ctx.ignored(kind)
        self.result = KindPlan()

    def given(self, entry: Any) -> set[str]:
        """The fields an entry manages: those it gives, less `ignore_fields`."""
        return set(entry.model_fields_set - self.ignored)

    def change(
        self,
        key: str,
        action: Action,
        fields: Iterable[Any],
        operations: Iterable[Any],
        **more: Any,
    ) -> None:
        change = Change(self.kind, key, action, tuple(fields), tuple(operations), **more)
        self.result.changes.append(change)

    def problem(
        self,
        key: str,
        message: str,
        remedy: str | None = None,
        *at: str | int,
        report: Any = error,
    ) -> None:
        """A diagnostic of the entry `key`, located at its value `at` when given (and
        known), else at the entry."""
        where = self.ctx.desired.location(self.kind, key, *at)
        location = where or self.ctx.location(self.kind, key)
        self.result.diagnostics.append(report(message, address(self.kind, key), remedy, location))

    def undeletable(self, name: str, remedy: str = ADD_OR_DELETE, where: str = "") -> None:
        """A pruned kind's live object the manifests do not list, which no call can delete."""
        message = f"{where}not in the manifests, and the API cannot delete {self.kind}"
        self.result.diagnostics.append(warning(message, address(self.kind, name), remedy))
