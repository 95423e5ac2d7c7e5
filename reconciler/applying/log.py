"""The record of an apply: one JSON object per line (time, object, operation, outcome),
written as it happens so that an interrupted run still leaves its trace. Operation
parameters are not recorded, and nothing in it is a secret."""

from __future__ import annotations

import json
import time
from collections.abc import Mapping
from pathlib import Path
from typing import IO, Any

from reconciler.errors import UsageError
from reconciler.masking import mask, unwritable_reason

DEFAULT_DIR = Path(".reconciler")


def default_path(directory: Path = DEFAULT_DIR) -> Path:
    stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
    return directory / f"apply-{stamp}.jsonl"


class ApplyLog:
    def __init__(self, path: Path) -> None:
        self.path = path
        self._file: IO[str] | None = None

    def __enter__(self) -> ApplyLog:
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._file = self.path.open("a", encoding="utf-8")
        except OSError as exc:  # before any operation: nothing has been written
            reason = unwritable_reason(exc, self.path)
            raise UsageError(f"cannot write the apply log {self.path}: {reason}") from None
        return self

    def record(self, entry: Mapping[str, Any]) -> None:
        if self._file is None:
            raise RuntimeError("the apply log is not open")
        line = json.dumps(dict(entry), default=str, separators=(",", ":"))
        self._file.write(mask(line) + "\n")  # an API message may quote a credential
        self._file.flush()

    def event(self, event: str, **details: Any) -> None:
        stamp = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
        self.record({"time": stamp, "event": event, **details})

    def __exit__(self, *exc: object) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None
