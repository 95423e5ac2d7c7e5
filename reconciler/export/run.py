"""`export_live`: open read-only clients, authenticate once, read the chosen kinds, and
turn them into manifest entries. `convert` is the pure part, for tests and tools."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from urllib.parse import urlsplit, urlunsplit

import httpx

from reconciler.clients.connection import Connection
from reconciler.errors import UsageError
from reconciler.export.clone import clone_settings
from reconciler.export.entries import Converter
from reconciler.export.result import ExportResult
from reconciler.export.selection import Selection
from reconciler.export.snapshot import LiveSnapshot, read_snapshot
from reconciler.kinds.categories.reader import LiveCategories
from reconciler.kinds.register import CONVERTERS
from reconciler.kinds.table import service_of
from reconciler.session.workflow import open_clients, require_administrator


def public_url(url: str) -> str:
    """A base URL as it may be shown: without user, password, query or fragment."""
    parts = urlsplit(url)
    host = parts.hostname or ""
    if ":" in host:  # an IPv6 address
        host = f"[{host}]"
    netloc = f"{host}:{parts.port}" if parts.port else host
    return urlunsplit((parts.scheme, netloc, parts.path.rstrip("/"), "", ""))


def convert(
    snapshot: LiveSnapshot,
    selection: Selection,
    *,
    include_empty: bool = False,
    sources: dict[str, str] | None = None,
    now: datetime | None = None,
    warnings: list[str] | None = None,
) -> ExportResult:
    """The entries of every kind the snapshot holds (pure)."""
    conv = Converter(snapshot, selection, include_empty)
    entries = {kind: CONVERTERS[kind](conv) for kind in snapshot.kinds}
    notes = [*(warnings or []), *snapshot.notes, *conv.notes]
    notes += [
        f"--target {target} matched no live object"
        for target in selection.unmatched_targets(conv.keys)
    ]
    return ExportResult(
        entries,
        sources or {},
        now or datetime.now(UTC),
        conv.unknown_rules,
        clone_settings(
            snapshot.catalogue, conv.learned.settings(), snapshot.exported(LiveCategories)
        ),
        notes,
    )


async def export_live(
    connection: Connection,
    selection: Selection | None = None,
    *,
    include_empty: bool = False,
    on_read: Callable[[str], None] | None = None,
    transport: httpx.AsyncBaseTransport | None = None,
) -> ExportResult:
    """Read the live state of the selected kinds (read-only clients: a write attempt is
    a bug and raises) and convert it. Kinds whose service is not configured are skipped
    with a warning; raises UsageError when that leaves nothing to export."""
    selection = selection or Selection.build()
    configured = {
        "helpdesk": connection.helpdesk is not None,
        "workspace": connection.workspace is not None,
    }
    kinds = tuple(k for k in selection.kinds if configured[service_of(k)])
    warnings = []
    for service in ("helpdesk", "workspace"):
        skipped = [k for k in selection.kinds if service_of(k) == service and k not in kinds]
        if skipped:
            warnings.append(
                f"{', '.join(skipped)} skipped: the {service} service is not configured"
            )
    if not kinds:
        raise UsageError(
            "nothing to export: the services of the kinds asked for are not configured "
            f"({'; '.join(warnings)})"
        )
    sources = {}
    if connection.helpdesk is not None:
        sources["helpdesk"] = public_url(connection.helpdesk.url)
    if connection.workspace is not None:
        sources["workspace"] = public_url(connection.workspace.url)
    async with open_clients(connection, read_only=True, transport=transport) as clients:
        helpdesk_kinds = any(service_of(k) == "helpdesk" for k in kinds)
        if helpdesk_kinds and clients.helpdesk is not None:
            # Authentication is verified once, before anything else: a failure stops here.
            require_administrator(await clients.helpdesk.authenticate())
        snapshot = await read_snapshot(
            selection, kinds, clients.helpdesk, clients.workspace, on_read
        )
    return convert(
        snapshot,
        selection,
        include_empty=include_empty,
        sources=sources,
        warnings=warnings,
    )
