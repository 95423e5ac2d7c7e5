"""Writing an export into a directory (`export --out DIR`).

Decisions:
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

import os
from dataclasses import dataclass
from pathlib import Path

from reconciler.errors import UsageError
from reconciler.export.result import SCHEMA_FILE, ExportResult
from reconciler.manifest.loader import MANIFEST_SUFFIXES
from reconciler.manifest.schema import schema_text
from reconciler.masking import write_text


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
    """Raises UsageError when DIRECTORY cannot take an export (see the decisions)."""
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
    texts = result.files(schema or SCHEMA_FILE)
    written = [_write(directory / name, text) for name, text in texts.items()]
    if schema is None:
        written.append(_write(directory / SCHEMA_FILE, schema_text()))
    mine = {p.resolve() for p in written}
    others = [p for p in existing_manifests(directory) if p.resolve() not in mine]
    return Written(directory, written, others)


def _write(path: Path, text: str) -> Path:
    write_text(path, text)
    return path
