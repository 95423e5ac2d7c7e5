"""Reading the live state for an export (the only I/O of an export): the resources' own
readers, each reading its kind in full (`live.FullRead`), so that what is written is what
`plan` reads. Per-object details are read only for the objects the selection exports
(company and user custom field values, when any field of that kind is defined; the
technicians of each exported category); assets are listed with the disabled ones, and,
when the listing does not say which are disabled, once more without them.

`LiveSnapshot` is what the conversion (`entries`, `people`, `assets`) works from: each
kind's live state, as the planner sees it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, TypeVar

from reconciler.errors import UsageError
from reconciler.export.selection import RULES, Selection
from reconciler.kinds.automation_rules.reader import LiveRules
from reconciler.kinds.custom_fields.reader import KIND as CATALOGUE
from reconciler.kinds.custom_fields.reader import CustomFieldCatalogue
from reconciler.kinds.register import RESOURCES
from reconciler.kinds.table import spec
from reconciler.live import FullRead, read_live
from reconciler.manifest.desired import DesiredState
from reconciler.manifest.document import Manifest
from reconciler.manifest.models import Settings

OnRead = Callable[[str], None]  # pragma: no mutate
T = TypeVar("T")  # pragma: no mutate


@dataclass
class LiveSnapshot:
    """What was read: each kind's live state as its reader gives it. Lists are complete
    (other kinds look names up in them); per-object details (custom values, technicians)
    are filled for the exported objects only."""

    kinds: tuple[str, ...]  # the kinds exported
    live: Mapping[str, Any]  # kind -> its live state (every caller gives it)
    notes: list[str] = field(default_factory=list)

    def of(self, kind: str, empty: T) -> T:
        """The live state of `kind`; `empty` (of its type) when it was not read."""
        found = self.live.get(kind)
        return found if isinstance(found, type(empty)) else empty

    def exported(self, cls: type[T]) -> T | None:
        """The live state of type `cls` of a kind exported, or None."""
        found = [self.live.get(kind) for kind in self.kinds]
        return next((live for live in found if isinstance(live, cls)), None)

    @property
    def catalogue(self) -> CustomFieldCatalogue:
        return self.of(CATALOGUE, CustomFieldCatalogue({}))


async def read_snapshot(
    selection: Selection,
    kinds: tuple[str, ...],
    helpdesk: Any,
    workspace: Any,
    on_read: OnRead | None = None,
) -> LiveSnapshot:
    """Read `kinds` in full (raises UsageError for a rule id the service does not know)."""
    # What a kind's conversion looks names up in is read too; a kind exported is read in
    # full anyway: a lookup must not narrow its read.
    lookups = {k.value for kind in kinds for k in spec(kind).export_reads}
    scope = FullRead(
        frozenset(kinds),
        wants=selection.wants,
        named={RULES: tuple(str(i) for i in selection.rule_ids)},
        also=frozenset(lookups - set(kinds)),
    )

    def read(kind: str) -> None:
        if on_read is not None and kind in kinds:
            on_read(kind)

    live = await read_live(
        DesiredState.from_manifest(Manifest(settings=Settings(scope=selection.scope))),
        RESOURCES,
        helpdesk=helpdesk,
        workspace=workspace,
        on_read=read,
        full=scope,
    )
    rules = live.kinds.get(RULES)
    if isinstance(rules, LiveRules):
        missing = [str(i) for i in selection.rule_ids if rules.by_id.get(i) is None]
        if missing:
            raise UsageError(
                f"no automation rule with id {', '.join(missing)}: check the ids given with "
                "--rule-ids (the helpdesk's automation rules page shows them)"
            )
    # What a kind's live state says an export leaves out (`export_notes()`), first.
    notes = [
        note
        for kind in kinds
        for note in getattr(live.kinds.get(kind), "export_notes", lambda: [])()
    ]
    return LiveSnapshot(kinds, live.kinds, notes)
