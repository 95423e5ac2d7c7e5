"""`export`: the live state written as manifests, one file per kind into `--out DIR`, or
one manifest on stdout. This is export's I/O; the conversion is pure (reconciler/export/).

Reading: the resources' own readers, each reading its kind in full (`live.FullRead`), so
that what is written is what `plan` reads. Per-object details are read only for the
objects the selection exports (company and user custom field values, when any field of
that kind is defined; the technicians of each exported category); assets are listed with
the disabled ones, and, when the listing does not say which are disabled, once more
without them.

Writing into a directory (`--out DIR`):
- `plan DIR` reads every manifest under DIR, so an export into a directory that already
  holds manifests (`*.yaml`, `*.yml`, outside dot-directories) would be planned together
  with them: duplicates or stale objects. So that is refused, unless `force`: then the
  files the export writes are overwritten and the other manifests are left as they are
  (and listed, for the caller to warn about).
- Unless the caller names the schema (`schema`, e.g. a path into their repository), the
  current JSON Schema is written next to the manifests as `manifest.schema.json` and the
  schema comment refers to it, so editors complete fields at once. The loader reads only
  `*.yaml`/`*.yml`, so the schema file is never taken for a manifest.
- Each file is written as every output file is (masking.write_text): masked (a
  credential typed into a live value is not copied into the repository), to a temporary
  name then renamed, so an interrupted export leaves whole files.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import click
import httpx

from reconciler.clients.connection import Connection
from reconciler.errors import UsageError
from reconciler.export.entries import LiveSnapshot
from reconciler.export.result import SCHEMA_FILE, ExportResult, convert
from reconciler.export.selection import RULES, Selection, parse_rule_ids
from reconciler.kinds.automation_rules.reader import LiveRules
from reconciler.kinds.register import RESOURCES
from reconciler.kinds.table import service_of, spec
from reconciler.live import FullRead, read_live
from reconciler.manifest.desired import DesiredState
from reconciler.manifest.document import Manifest
from reconciler.manifest.loader import MANIFEST_SUFFIXES
from reconciler.manifest.models import Settings
from reconciler.manifest.schema import schema_text
from reconciler.masking import write_text
from reconciler.project import Target
from reconciler.run.connect import open_connection
from reconciler.run.flags import ExportFlags
from reconciler.run.outputs import check_writable
from reconciler.session.workflow import open_clients, require_administrator
from reconciler.terminal.console import Progress


def selection_of(flags: ExportFlags) -> Selection:
    return Selection.build(kinds=flags.kinds, targets=flags.targets, excludes=flags.excludes,
                           rule_ids=parse_rule_ids(flags.rule_ids),
                           scope_from=flags.scope_from)  # fmt: skip


def run_export(flags: ExportFlags, target: Target | None = None) -> None:
    selection = selection_of(flags)
    out = flags.out
    if out is not None:
        check_directory(out, force=flags.force)  # before reading: fail fast
        check_writable("--out", out, directory=True)
    with open_connection(flags.connection, target) as conn, Progress() as progress:
        result = asyncio.run(export_live(conn, selection, include_empty=flags.include_empty,
                                         on_read=progress.read))  # fmt: skip
    for message in result.warnings:
        click.echo(f"Warning: {message}", err=True)
    if out is None:
        click.echo(result.document(flags.schema_ref or "manifest.schema.json"), nl=False)
        click.echo(f"Exported {result.count} object(s).", err=True)
        return
    written = write_directory(result, out, schema=flags.schema_ref, force=flags.force)
    names = ", ".join(p.name for p in written.files)
    click.echo(f"Exported {result.count} object(s) to {out}: {names}.", err=True)
    if written.others:
        others = ", ".join(str(p.relative_to(out)) for p in written.others)
        click.echo(
            f"Warning: {out} also holds other manifests, left as they were, which `plan "
            f"{out}` reads too: {others}",
            err=True,
        )


def public_url(url: str) -> str:
    """A base URL as it may be shown: without user, password, query or fragment."""
    parts = urlsplit(url)
    host = parts.hostname or ""
    if ":" in host:  # an IPv6 address
        host = f"[{host}]"
    netloc = f"{host}:{parts.port}" if parts.port else host
    return urlunsplit((parts.scheme, netloc, parts.path.rstrip("/"), "", ""))


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
    services = {"helpdesk": connection.helpdesk, "workspace": connection.workspace}
    kinds = tuple(k for k in selection.kinds if services[service_of(k)] is not None)
    warnings = []
    for service in services:
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
    sources = {name: public_url(s.url) for name, s in services.items() if s is not None}
    async with open_clients(connection, read_only=True, transport=transport) as clients:
        helpdesk_kinds = any(service_of(k) == "helpdesk" for k in kinds)
        if helpdesk_kinds and clients.helpdesk is not None:
            # Authentication is verified once, before anything else: a failure stops here.
            require_administrator(await clients.helpdesk.authenticate())
        snapshot = await read_snapshot(
            selection, kinds, clients.helpdesk, clients.workspace, on_read
        )
    return convert(
        snapshot, selection, include_empty=include_empty, sources=sources, warnings=warnings
    )


async def read_snapshot(
    selection: Selection,
    kinds: tuple[str, ...],
    helpdesk: Any,
    workspace: Any,
    on_read: Callable[[str], None] | None = None,
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


@dataclass(frozen=True)
class Written:
    directory: Path
    files: list[Path]  # written, manifests first, the schema last
    others: list[Path]  # manifests already there that the export did not write


def existing_manifests(directory: Path) -> list[Path]:
    """The manifests `plan DIRECTORY` would read (as the loader finds them)."""
    if not directory.is_dir():
        return []
    found = []
    for root, dirs, files in os.walk(directory):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        for name in sorted(files):
            if not name.startswith(".") and name.endswith(MANIFEST_SUFFIXES):
                found.append(Path(root) / name)
    return found


def check_directory(directory: Path, *, force: bool) -> None:
    """Raises UsageError when DIRECTORY cannot take an export (see the module's docstring)."""
    if directory.exists() and not directory.is_dir():
        raise UsageError(f"--out {directory}: exists and is not a directory")
    found = existing_manifests(directory)
    if found and not force:
        shown = ", ".join(str(p.relative_to(directory)) for p in found[:5])
        more = f" and {len(found) - 5} more" if len(found) > 5 else ""
        raise UsageError(
            f"--out {directory} already holds manifests ({shown}{more}), which `plan` would "
            "read together with the export: export into an empty directory, or add --force "
            "to overwrite the files the export writes (the others are left as they are)"
        )


def write_directory(
    result: ExportResult, directory: Path, *, schema: str | None = None, force: bool = False
) -> Written:
    check_directory(directory, force=force)
    texts = {**result.files(schema or SCHEMA_FILE)}
    if schema is None:
        texts[SCHEMA_FILE] = schema_text()
    written = [directory / name for name in texts]
    for path, text in zip(written, texts.values(), strict=True):
        write_text(path, text)
    mine = {p.resolve() for p in written}
    others = [p for p in existing_manifests(directory) if p.resolve() not in mine]
    return Written(directory, written, others)
