"""Loading manifests (DESIGN §2): files and directories to one `DesiredState`, or one
`ManifestError` holding every problem of every file.

Decisions where the design is silent:
- A directory stands for every `*.yaml` and `*.yml` file below it, recursively, in sorted
  order; names starting with `.` (`.git`, `.venv`, editor files) are skipped, and symbolic
  links are followed while they stay inside the repository (files.py, `Boundary`); one
  leading out of it is a problem naming it, not read. A file given by name is read
  whatever its suffix. A file reached twice (a directory and a file in it) is read once.
- A file may hold several `---`-separated documents, each a manifest. Empty documents are
  skipped, but a file with no document at all (empty, or only comments) is a problem:
  it is more often a mistake than a wish; `{}` says "intentionally empty". A file of more
  than `MAX_DOCUMENTS` (10,000) documents, empty ones included, is a problem at the first
  one past the bound, and the rest is not read (yamltree.py).
- A path that does not exist, cannot be read or is a directory without manifests is a
  problem reported as `PATH:1:1: ...`, so that every line has the same shape. So is a
  FIFO, a device or a socket (given, or named `*.yaml` in a directory), and a file over
  the size cap (files.py): they are never read.
"""

from __future__ import annotations

import itertools
import os
import stat
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

from reconciler.manifest.desired import DesiredState
from reconciler.manifest.files import Boundary, FileRefused, inside, read_regular_file
from reconciler.manifest.merge import Document, apply_overlays, merge, overlay_sources
from reconciler.manifest.problems import Problems, Source
from reconciler.manifest.schema_errors import validate_document
from reconciler.manifest.variables import Refusal, Variables, allowed_variables, field_at
from reconciler.manifest.yamltree import Node, Report, parse_documents

MANIFEST_SUFFIXES = (".yaml", ".yml")


def load_manifests(
    paths: Sequence[Path],
    env: Mapping[str, str],
    variables: Mapping[str, str] | None = None,
    *,
    credential_variables: Iterable[str] = (),
) -> DesiredState:
    """Every manifest under `paths`, merged. `${NAME}` is looked up in `variables` first,
    then in `env`, never for a credential (variables.py; `credential_variables`: those
    reconciler.yaml names). Raises `ManifestError` with every problem found, and nothing
    else."""
    problems = Problems()
    files = []
    for source, path in find_manifest_files(paths, problems):
        try:
            files.append((source, read_regular_file(path)))
        except FileRefused as exc:
            problems.add(source, 1, 1, f"cannot read the file: {exc}")
    found = Variables(env, variables, credential_variables=credential_variables)
    return _load(files, problems, found)


def load_manifest_text(
    text: str | bytes,
    name: str = "manifest.yaml",
    *,
    env: Mapping[str, str] | None = None,
    variables: Mapping[str, str] | None = None,
    credential_variables: Iterable[str] = (),
) -> DesiredState:
    """One manifest given as text (tests, tools): as `load_manifests` for a file `name`."""
    data = text.encode("utf-8") if isinstance(text, str) else text
    found = Variables(env or {}, variables, credential_variables=credential_variables)
    return _load([(Source(name, 0), data)], Problems(), found)


def find_manifest_files(paths: Sequence[Path], problems: Problems) -> list[tuple[Source, Path]]:
    """The files to load, each with its `Source`; problems with the paths are reported."""
    found: list[tuple[Source, Path]] = []
    seen: set[str] = set()
    order = itertools.count()  # problems with a path come where the path was given
    for given in paths:
        here = Source(str(given), next(order))
        try:
            mode = given.stat().st_mode
        except FileNotFoundError:
            problems.add(here, 1, 1, "no such file or directory")
            continue
        except OSError as exc:
            problems.add(here, 1, 1, f"cannot read: {exc.strerror or exc}")
            continue
        boundary = Boundary(given)
        if (real := boundary.leads_out(given)) is not None:
            problems.add(here, 1, 1, _leads_out(given, real, boundary))
            continue
        if stat.S_ISDIR(mode):
            files = list(_directory_files(given, here, problems, boundary))
            if not files:
                problems.add(here, 1, 1, "no manifest files (*.yaml, *.yml) in this directory")
        else:
            files = [given]
        for path in files:
            real = os.path.realpath(path)
            if real not in seen:
                seen.add(real)
                found.append((Source(str(path), next(order)), path))
    return found


def _leads_out(link: Path, real: str, boundary: Boundary) -> str:
    return (
        f"{link} is a symbolic link to {real}, outside {boundary.what}: not read (a "
        "manifest is read only inside it; copy the file in, or give its path directly)"
    )


def _directory_files(
    root: Path, here: Source, problems: Problems, boundary: Boundary
) -> Iterable[Path]:
    def unreadable(exc: OSError) -> None:
        where = exc.filename or root
        problems.add(here, 1, 1, f"cannot read the directory {where}: {exc.strerror or exc}")

    found: list[tuple[tuple[str, ...], Path]] = []
    # Symbolic links to directories are followed (their manifests count, as under prune a
    # skipped one would remove its objects); a link back to a directory being walked is a
    # loop, reported, and a directory reached twice is read once.
    visited = {os.path.realpath(root)}
    for directory, subdirectories, names in os.walk(root, onerror=unreadable, followlinks=True):
        kept = []
        for name in subdirectories:
            real = os.path.realpath(Path(directory, name))
            if name.startswith("."):
                continue
            if boundary.leads_out(real) is not None:
                problems.add(here, 1, 1, _leads_out(Path(directory, name), real, boundary))
                continue
            if inside(directory, real, resolve=True):
                link = Path(directory, name)
                problems.add(here, 1, 1, f"symbolic link loop: {link} points to {real}, "
                             "which holds it: remove the link")  # fmt: skip
                continue
            if real in visited:
                continue  # its manifests are read through the other path to it
            visited.add(real)
            kept.append(name)
        subdirectories[:] = kept
        for name in names:
            if not name.startswith(".") and name.lower().endswith(MANIFEST_SUFFIXES):
                path = Path(directory, name)
                if (leads_to := boundary.leads_out(path)) is not None:
                    problems.add(here, 1, 1, _leads_out(path, leads_to, boundary))
                    continue
                found.append((path.relative_to(root).parts, path))
    return [path for _, path in sorted(found)]


def _load(
    files: Sequence[tuple[Source, bytes]], problems: Problems, variables: Variables
) -> DesiredState:
    found = Problems()
    parsed = _parse(files, found, variables)
    allowed = allowed_variables(parsed, found, variables)
    if variables.refused & allowed:  # read again, the names the settings allow allowed
        found = Problems()
        parsed = _parse(files, found, variables.allowing(allowed))
        allowed_variables(parsed, found, variables)
    problems.extend(found)
    refined = apply_overlays(parsed, problems)  # before validation: entries merged whole
    given = overlay_sources(refined)
    documents = []
    for source, root in parsed:
        manifest, invalid = validate_document(root)
        for node, message in invalid:
            problems.at(given.get(id(node), source), node, message)
        documents.append(Document(source, root, manifest))
    merged = merge(documents, problems)
    problems.raise_if_any()
    assert merged is not None, "merge() returns None only after reporting a problem"
    return DesiredState(
        merged.manifest,
        files=tuple(source.name for source, _ in files),
        entry_nodes=merged.entries,
        settings_node=merged.settings,
        refinements=refined,
    )


def _parse(
    files: Sequence[tuple[Source, bytes]], problems: Problems, variables: Variables
) -> list[tuple[Source, Node]]:
    parsed: list[tuple[Source, Node]] = []
    for source, data in files:
        text = decode_utf8(source, data, problems)
        if text is None:
            continue
        before = len(problems)
        refusals: list[tuple[int, int, str]] = []
        report = _holding_refusals(problems.reporter(source), refusals)
        roots = parse_documents(text, report, variables.substitute)
        for line, column, message in refusals:
            field = field_at(roots, line, column)
            problems.add(source, line, column, f"{field}: {message}" if field else message)
        if not roots and len(problems) == before:
            problems.add(
                source, 1, 1, "empty manifest: the file holds no YAML document ({} is an empty one)"
            )
        parsed.extend((source, root) for root in roots)
    return parsed


def _holding_refusals(plain: Report, refusals: list[tuple[int, int, str]]) -> Report:
    """Reports problems through `plain`, but for refused references to credentials, held
    in `refusals` to be reported with their field once the tree is known."""

    def report(line: int, column: int, message: str) -> None:
        if isinstance(message, Refusal):
            refusals.append((line, column, message))
        else:
            plain(line, column, message)

    return report


def decode_utf8(source: Source, data: bytes, problems: Problems) -> str | None:
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        data = exc.object  # after a byte order mark, which `exc.start` does not count
        line_start = data.rfind(b"\n", 0, exc.start) + 1
        line = data.count(b"\n", 0, exc.start) + 1
        column = len(data[line_start : exc.start].decode("utf-8")) + 1  # valid up to there
        bad = data[exc.start]
        problems.add(
            source, line, column, f"not UTF-8 text (byte {bad:#04x}); manifests must be UTF-8"
        )
        return None
