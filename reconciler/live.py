"""Reading the live state: every resource the manifests need, concurrently, each through
its own `read` (the only I/O of planning). Kinds may wait for each other (users need the
departments' names), so each read is a task and `get(kind)` awaits another's result."""

from __future__ import annotations

import asyncio
import hashlib
import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from reconciler.manifest import DesiredState
from reconciler.resources.base import LiveData, Resource


@dataclass(frozen=True)
class LiveState:
    """The parsed live state of every kind read, and the kinds skipped because their
    service is not configured."""

    kinds: Mapping[str, LiveData]
    skipped: tuple[str, ...] = ()

    def digest(self) -> str:
        """sha256 of what was read, in a stable form without volatile fields: a saved
        plan is stale when this changes."""
        data = {kind: live.digest_data() for kind, live in sorted(self.kinds.items())}
        blob = json.dumps(data, sort_keys=True, separators=(",", ":"), default=str)
        return "sha256:" + hashlib.sha256(blob.encode()).hexdigest()


class LiveReader:
    def __init__(
        self,
        desired: DesiredState,
        resources: Sequence[Resource],
        *,
        helpdesk: Any = None,
        workspace: Any = None,
        prune: frozenset[str] = frozenset(),
        on_read: Callable[[str], None] | None = None,
    ) -> None:
        self._desired = desired
        self.prune = prune
        self._resources = resources
        self._helpdesk = helpdesk
        self._workspace = workspace
        self._on_read = on_read
        self._tasks: dict[str, asyncio.Task[LiveData]] = {}

    @property
    def helpdesk(self) -> Any:
        return self._helpdesk

    @property
    def workspace(self) -> Any:
        return self._workspace

    @property
    def desired(self) -> DesiredState:
        return self._desired

    async def get(self, kind: str) -> Any:
        """Another kind's live state, or None when this run does not read it."""
        task = self._tasks.get(kind)
        return None if task is None else await task

    async def read(self) -> LiveState:
        skipped: list[str] = []
        for resource in self._resources:
            if not resource.needs(self._desired):
                continue
            client = self._helpdesk if resource.service == "helpdesk" else self._workspace
            if client is None:
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
        return LiveState(dict(zip(self._tasks, results, strict=True)), tuple(skipped))

    async def _read_one(self, resource: Resource) -> LiveData:
        live = await resource.read(self)
        if self._on_read is not None:
            self._on_read(resource.kind)
        return live


async def read_live(
    desired: DesiredState,
    resources: Sequence[Resource],
    *,
    helpdesk: Any = None,
    workspace: Any = None,
    prune: frozenset[str] = frozenset(),
    on_read: Callable[[str], None] | None = None,
) -> LiveState:
    """`prune`: the kinds being pruned (`plan.prune_kinds`), which read more."""
    reader = LiveReader(
        desired, resources, helpdesk=helpdesk, workspace=workspace, prune=prune, on_read=on_read
    )
    return await reader.read()
