"""Reading a manifest or a variables file: only a regular file, and only up to a size cap.

A FIFO, a device or a directory given where a file is expected would hang (`mkfifo`, no
writer), never end (`/dev/zero`) or exhaust memory; each is refused with a clear message
instead. The file is opened without blocking and checked on the open descriptor, so a path
swapped for a FIFO between the check and the read cannot hang the run either.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

# The largest file read: far above any real manifest (a 66,000-line manifest is ~2 MB),
# far below what would exhaust memory once parsed.
MAX_FILE_BYTES = 32 * 1024 * 1024


class FileRefused(Exception):
    """The file cannot be read as a manifest; `str()` says why (without the path)."""


def read_regular_file(path: Path, limit: int = MAX_FILE_BYTES) -> bytes:
    """The bytes of `path`, a regular file of at most `limit` bytes, or `FileRefused`."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError as exc:
        raise FileRefused(str(exc.strerror or exc)) from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise FileRefused(f"it is {_describe(info.st_mode)}, not a regular file")
        if info.st_size > limit:
            raise FileRefused(_too_big(info.st_size, limit))
        chunks: list[bytes] = []
        size = 0
        while size <= limit:  # the file may grow after fstat: never read past the cap
            chunk = os.read(fd, min(1 << 20, limit + 1 - size))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
        if size > limit:
            raise FileRefused(_too_big(size, limit))
        return b"".join(chunks)
    except OSError as exc:
        raise FileRefused(str(exc.strerror or exc)) from None
    finally:
        os.close(fd)


def _too_big(size: int, limit: int) -> str:
    return (
        f"it is larger than {limit // (1024 * 1024)} MiB ({size:,} bytes or more); "
        "split it into several files"
    )


def _describe(mode: int) -> str:
    # What else `os.open` opens: a directory opens (read only), a socket never does
    # (ENXIO, "No such device or address", refused above); the rest are devices.
    if stat.S_ISDIR(mode):
        return "a directory"
    if stat.S_ISFIFO(mode):
        return "a FIFO (named pipe)"
    return "a device"


class Boundary:
    """Where the manifests under one given path may lead: the git work tree the path is
    in, else the working directory when the path is below it, else the path itself. A
    symbolic link in it that leads out (to `~/.ssh/...`, `/etc/...`) is refused: the
    links are the repository's content, which a pull request may change, and a file read
    as a manifest is quoted in the errors about it."""

    def __init__(self, given: Path) -> None:
        lexical = Path(os.path.abspath(given))
        top = next((d for d in lexical.parents if (d / ".git").exists()), None)
        if top is not None:
            self.root, self.what = top, f"the repository {top}"
        elif inside(str(lexical), os.getcwd()):
            self.root, self.what = Path.cwd(), f"the working directory {Path.cwd()}"
        else:
            self.root, self.what = lexical, str(given)
        self._real = os.path.realpath(self.root)

    def leads_out(self, path: Path | str) -> str | None:
        """Where `path` leads when that is outside the boundary (its links followed)."""
        real = os.path.realpath(path)
        return None if inside(real, self._real) else real


def inside(path: str | Path, top: str | Path, *, resolve: bool = False) -> bool:
    """Whether `path` is `top` or below it (with `resolve`, both with their links followed)."""
    if resolve:
        path, top = os.path.realpath(path), os.path.realpath(top)
    path, top = str(path), str(top)
    return path == top or path.startswith(top.rstrip(os.sep) + os.sep)
