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
