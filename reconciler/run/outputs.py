"""The files a command writes besides its reports: every output path checked before any
call, and the plan's pull-request comments in numbered parts (one environment's, or
each of several's)."""

from __future__ import annotations

import os
from pathlib import Path

from reconciler.errors import UsageError


def check_writable(
    option: str, path: Path, *, directory: bool = False, appended: bool = False
) -> None:
    """Refuse, before any call, an output path that cannot be written: `option PATH:
    why`, one line (a path component that is a file, a directory where a file goes, a
    place without write permission). The write itself reports anything this misses.
    An `appended` file (the apply log) is never a symbolic link: a file written whole
    replaces a link, but appending would write to whatever the link points to."""
    if appended and path.is_symlink():
        raise UsageError(
            f"{option} {path}: it is a symbolic link, and the file is appended to: give "
            "the path of the file itself"
        )
    existing = path
    while not os.path.lexists(existing) and existing != existing.parent:
        existing = existing.parent
    if existing == path and path.exists():
        if directory != path.is_dir():
            what = "is not a directory" if directory else "is a directory"
            raise UsageError(f"{option} {path}: {what}")
        place = path if directory else path.parent
    elif not existing.is_dir():
        # A link to nothing (`lexists` but not `exists`) would be written through to
        # wherever it points, or fail there: refused, saying what it is.
        what = "a symbolic link to nothing" if existing.is_symlink() else "a file"
        raise UsageError(f"{option} {path}: {existing} is {what}, not a directory")
    else:
        place = existing
    if not os.access(place, os.W_OK | os.X_OK):
        raise UsageError(f"{option} {path}: cannot write in {place}: permission denied")


def write_comment_parts(directory: Path, parts: list[str]) -> int:
    """`1.md`, `2.md`, ...; numbered parts of an earlier, longer plan are removed, so the
    directory always holds exactly this plan's comments. Written as every output file is
    (masking.write_text): a credential in a value never reaches a pull request."""
    from reconciler.masking import write_text

    for number, text in enumerate(parts, start=1):
        write_text(directory / f"{number}.md", text)
    for stale in directory.glob("*.md"):
        if stale.stem.isdigit() and int(stale.stem) > len(parts):
            stale.unlink()
    return len(parts)
