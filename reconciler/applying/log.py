"""The record of an apply: one JSON object per line (time, object, operation, outcome),
written as it happens so that an interrupted run still leaves its trace. Operation
parameters are not recorded, and nothing in it is a secret.

A line is written whole or not at all: a write the disk cannot take (full, quota, an I/O
error) is cut back to the end of the last whole line and raises `LogUnwritable`, so that
whoever reads the log after an apply went wrong never meets half a record. The log is
opened without following a symbolic link (appending would write to the link's target)."""

from __future__ import annotations

import contextlib
import errno
import json
import os
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, BinaryIO

from reconciler.errors import ReconcilerError, UsageError
from reconciler.masking import mask, unwritable_reason

DEFAULT_DIR = Path(".reconciler")


class LogUnwritable(ReconcilerError):
    """A record could not be written whole (it was not written at all)."""


def default_path(directory: Path = DEFAULT_DIR) -> Path:
    stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
    return directory / f"apply-{stamp}.jsonl"


def open_for_append(path: Path) -> BinaryIO:
    """`path` opened to append bytes, unbuffered (each write reaches the file as it is
    made), never through a symbolic link."""
    flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0)
    fd = os.open(path, flags, 0o666)
    return os.fdopen(fd, "ab", buffering=0)


class ApplyLog:
    """`opener` opens the file (a test gives one whose writes fail after some bytes)."""

    def __init__(self, path: Path, opener: Callable[[Path], BinaryIO] | None = None) -> None:
        self.path = path
        self._opener = opener or open_for_append
        self._file: BinaryIO | None = None

    def __enter__(self) -> ApplyLog:
        if self.path.is_symlink():
            raise UsageError(
                f"cannot write the apply log {self.path}: it is a symbolic link (the log "
                "would be appended to whatever it points to); give the file's own path"
            )
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._file = self._opener(self.path)
        except OSError as exc:  # before any operation: nothing has been written
            reason = unwritable_reason(exc, self.path)
            raise UsageError(f"cannot write the apply log {self.path}: {reason}") from None
        return self

    def record(self, entry: Mapping[str, Any]) -> None:
        if self._file is None:
            raise RuntimeError("the apply log is not open")
        line = json.dumps(dict(entry), default=str, separators=(",", ":"))
        data = (mask(line) + "\n").encode()  # an API message may quote a credential
        file = self._file
        start = file.tell()
        written = 0
        try:
            while written < len(data):
                count = file.write(data[written:])
                if not count:  # a device that takes nothing would be asked forever
                    raise OSError(errno.EIO, "the file took none of the record")
                written += count
        except OSError as exc:
            with contextlib.suppress(OSError):  # the part written is cut off again
                file.truncate(start)
            reason = exc.strerror or type(exc).__name__
            raise LogUnwritable(f"cannot write the apply log {self.path}: {reason}") from None

    def event(self, event: str, **details: Any) -> None:
        stamp = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
        self.record({"time": stamp, "event": event, **details})

    def __exit__(self, *exc: object) -> None:
        if self._file is not None:
            with contextlib.suppress(OSError):  # unbuffered: nothing is left to write
                self._file.close()
            self._file = None
