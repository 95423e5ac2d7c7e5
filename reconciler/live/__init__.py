"""The live state: what the services hold now, read through `clients/` by the readers of
`resources/`. This module orchestrates the reads; `coverage.py` finds the live objects no
manifest names (and the share managed); `lookalikes.py` warns of new keys that only look
like live ones. Takes: `DesiredState` and clients. Gives: `LiveState`.

Reading the live state: every resource a run needs, concurrently, each through its own
reader (the only I/O of planning and of export). Kinds may wait for each other (users
need the departments' names), so each read is a task and `get(kind)` awaits another's
result.

Two modes, per kind (see `resources/base.py`, `Reader`): what the manifests' entries need
(plan), and everything of the kind (`FullRead`: export, unmanaged objects). The same
readers serve both, so what export writes is what plan reads.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TypedDict, Unpack

from reconciler.errors import MalformedAnswer
from reconciler.manifest.desired import DesiredState
from reconciler.resources.base import LiveData, Resource


@dataclass(frozen=True)
class FullRead:
    """The kinds read in full: every object with its details, of the objects `wants`
    selects (all, when None); `named` gives the keys of a kind that cannot be listed
    (rule ids). `also` are kinds read only as the manifests need them (their lists)."""

    kinds: frozenset[str] = frozenset()
    wants: Callable[[str, Any], bool] | None = None
    named: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    also: frozenset[str] = frozenset()


@dataclass(frozen=True)
class LiveState:
    """The parsed live state of every kind read, the kinds skipped because their service
    is not configured, and the kinds read in full."""

    kinds: Mapping[str, LiveData]
    skipped: tuple[str, ...] = ()
    full: frozenset[str] = frozenset()

    def digest(self) -> str:
        """sha256 of what was read, in a stable form without volatile fields: a saved
        plan is stale when this changes."""
        data = {kind: live.digest_data() for kind, live in sorted(self.kinds.items())}
        blob = json.dumps(data, sort_keys=True, separators=(",", ":"), default=str)
        return "sha256:" + hashlib.sha256(blob.encode()).hexdigest()

    def keys(self, kind: str) -> frozenset[str] | None:
        """The normalised keys (`manifest.kinds.normalise_key`) of every live object of
        `kind`, or None unless it was read in full (a plan's read may cover only the
        objects its manifests name)."""
        live = self.kinds.get(kind)
        return live.keys() if live is not None and kind in self.full else None


class ReadOptions(TypedDict, total=False):
    """What `LiveReader`/`read_live` take beside the manifests and the resources."""

    helpdesk: Any  # the clients; None when that service is not configured
    workspace: Any
    prune: frozenset[str]  # the kinds being pruned (`plan.prune_kinds`), which read more
    on_read: Callable[[str], None] | None  # called as each kind is read
    full: FullRead | None  # the kinds read in full, whose keys `LiveState.keys` gives


class LiveReader:
    def __init__(
        self, desired: DesiredState, resources: Sequence[Resource], **options: Unpack[ReadOptions]
    ) -> None:
        self.desired = desired
        self.helpdesk = options.get("helpdesk")  # the clients, None when not configured
        self.workspace = options.get("workspace")
        self.prune = options.get("prune", frozenset())
        self._resources = resources
        self._on_read = options.get("on_read")
        self._scope = options.get("full") or FullRead()
        self._tasks: dict[str, asyncio.Task[LiveData]] = {}

    def full(self, kind: str) -> bool:
        return kind in self._scope.kinds

    def wants(self, kind: str, key: Any) -> bool:
        return self._scope.wants is None or self._scope.wants(kind, key)

    def named(self, kind: str) -> tuple[str, ...]:
        return self._scope.named.get(kind, ())

    async def get(self, kind: str) -> Any:
        """Another kind's live state, or None when this run does not read it."""
        task = self._tasks.get(kind)
        return None if task is None else await task

    def _wanted(self) -> set[str]:
        """The kinds read for the full read: those, the kinds their reads use, `also`."""
        uses = {r.kind: r.uses for r in self._resources}
        wanted = set(self._scope.also)
        pending = list(self._scope.kinds)
        while pending:
            kind = pending.pop()
            if kind not in wanted:
                wanted.add(kind)
                pending.extend(uses.get(kind, ()))
        return wanted

    async def read(self) -> LiveState:
        skipped: list[str] = []
        wanted = self._wanted()
        for resource in self._resources:
            if not (resource.kind in wanted or resource.needs(self.desired)):
                continue
            if getattr(self, resource.service) is None:
                skipped.append(resource.kind)
                continue
            self._tasks[resource.kind] = asyncio.create_task(self._read_one(resource))
        try:
            results = await asyncio.gather(*self._tasks.values())
        except BaseException:
            for task in self._tasks.values():
                task.cancel()
            await asyncio.gather(*self._tasks.values(), return_exceptions=True)
            raise
        kinds = dict(zip(self._tasks, results, strict=True))
        return LiveState(kinds, tuple(skipped), self._scope.kinds & frozenset(kinds))

    async def _read_one(self, resource: Resource) -> LiveData:
        try:
            live = await resource.read(self)
        except (KeyError, ValueError, TypeError, AttributeError, OverflowError) as exc:
            # A reader indexes and converts what the service answered: when that fails,
            # the answer is not what the spec describes, and the user is told which.
            raise malformed(resource, exc) from None
        if self._on_read is not None:
            self._on_read(resource.kind)
        return live


def malformed(resource: Resource, exc: Exception) -> MalformedAnswer:
    """The one-line message for an answer a reader could not read."""
    if isinstance(exc, KeyError):
        what = f"an item has no '{_shown(exc.args[0] if exc.args else '')}'"
    else:
        what = _shown(exc) or type(exc).__name__
    variable = "HELPDESK_URL" if resource.service == "helpdesk" else "WORKSPACE_URL"
    return MalformedAnswer(
        f"the {resource.service}'s answer for {resource.kind} cannot be read: {what}; "
        f"check that {variable} is the {resource.service}'s address"
    )


def _shown(value: object, limit: int = 160) -> str:
    """Server text in one printable line, cut to `limit`."""
    text = str(value).encode("unicode_escape").decode("ascii")
    return text if len(text) <= limit else text[: limit - 1] + "…"


async def read_live(
    desired: DesiredState, resources: Sequence[Resource], **options: Unpack[ReadOptions]
) -> LiveState:
    return await LiveReader(desired, resources, **options).read()
