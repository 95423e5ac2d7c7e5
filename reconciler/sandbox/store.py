"""Document store of the sandbox: every table is a dict of id -> record, kept in memory
and written through to SQLite so that a restart keeps everything.

Records are plain JSON-able dicts. `get`/`rows` hand out the live dicts for speed: treat
them as read-only and change records only through `update`/`put`, which persist.
"""

from __future__ import annotations

import json
import sqlite3
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from reconciler.errors import UsageError
from reconciler.masking import unwritable_reason

Record = dict[str, Any]

_SCHEMA = """
CREATE TABLE IF NOT EXISTS records (
    tbl TEXT NOT NULL,
    id INTEGER NOT NULL,
    body TEXT NOT NULL,
    PRIMARY KEY (tbl, id)
);
CREATE TABLE IF NOT EXISTS sequences (tbl TEXT PRIMARY KEY, last_id INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
"""


class Store:
    """In-memory tables backed by one SQLite file (or `:memory:` when `path` is None)."""

    def __init__(self, path: str | Path | None = None) -> None:
        self.path = Path(path) if path is not None else None
        self._db = self._open()
        self._lock = threading.RLock()
        self._batch_depth = 0
        self.writes = 0  # counts changes, so a caller can tell whether a request wrote
        self.tables: dict[str, dict[int, Record]] = {}
        self._seq: dict[str, int] = {}
        self._load()

    def _open(self) -> sqlite3.Connection:
        """The database, its tables made; a file that is not one the sandbox can use (not
        SQLite, in a place that cannot be written) is a one-line `UsageError` naming it."""
        if self.path is not None:
            try:
                self.path.parent.mkdir(parents=True, exist_ok=True)
            except OSError as exc:
                reason = unwritable_reason(exc, self.path)
                raise UsageError(f"the sandbox database {self.path}: {reason}") from None
        # The server may run in another thread than the one that built the store.
        db = sqlite3.connect(str(self.path) if self.path else ":memory:", check_same_thread=False)
        try:
            db.executescript(_SCHEMA)
            db.execute("PRAGMA journal_mode=WAL")
            db.execute("PRAGMA synchronous=NORMAL")
        except sqlite3.DatabaseError as exc:
            db.close()
            raise UsageError(
                f"the sandbox database {self.path}: {exc}; give --db a new file or one the "
                "sandbox wrote"
            ) from None
        return db

    def _load(self) -> None:
        for tbl, rid, body in self._db.execute("SELECT tbl, id, body FROM records ORDER BY id"):
            self.tables.setdefault(tbl, {})[rid] = json.loads(body)
        for tbl, last in self._db.execute("SELECT tbl, last_id FROM sequences"):
            self._seq[tbl] = last

    def close(self) -> None:
        with self._lock:
            self._db.close()

    @property
    def is_empty(self) -> bool:
        return not any(self.tables.values())

    # -- reading ---------------------------------------------------------------------

    def table(self, tbl: str) -> dict[int, Record]:
        return self.tables.setdefault(tbl, {})

    def get(self, tbl: str, rid: int) -> Record | None:
        return self.tables.get(tbl, {}).get(rid)

    def rows(self, tbl: str) -> list[Record]:
        """All records of a table in id order."""
        return list(self.tables.get(tbl, {}).values())

    def find(self, tbl: str, **equal: Any) -> Record | None:
        for rec in self.tables.get(tbl, {}).values():
            if all(rec.get(k) == v for k, v in equal.items()):
                return rec
        return None

    def find_name(self, tbl: str, name: str, field: str = "name") -> Record | None:
        """Case-insensitive lookup by a name field, as the helpdesk matches names: the
        first record in the table's order whose `field`, stripped, equals `name` stripped,
        in any case (a field that is not text never matches)."""
        wanted = name.strip().casefold()
        for rec in self.tables.get(tbl, {}).values():
            value = rec.get(field)
            if isinstance(value, str) and value.strip().casefold() == wanted:
                return rec
        return None

    # -- writing ---------------------------------------------------------------------

    def ensure(self, tbl: str, name: str, make: Callable[[str], Record]) -> Record:
        """The record named `name` (as `find_name` matches), made by `make` from the
        stripped name when there is none: the API creates what a write names."""
        return self.find_name(tbl, name) or self.insert(tbl, make(name.strip()))

    @contextmanager
    def batch(self) -> Iterator[None]:
        """Group many writes into one SQLite transaction (seeding thousands of records)."""
        with self._lock:
            self._batch_depth += 1
            try:
                yield
            finally:
                self._batch_depth -= 1
                if self._batch_depth == 0:
                    self._db.commit()

    def insert(self, tbl: str, record: Record, rid: int | None = None) -> Record:
        """Add a record under the next id, or under `rid` (seeds that fix ids, e.g. rules)."""
        with self._lock:
            if rid is None:
                rid = self._seq.get(tbl, 0) + 1
            elif rid in self.table(tbl):
                raise KeyError(f"{tbl} {rid} exists already")
            self._seq[tbl] = max(rid, self._seq.get(tbl, 0))
            record = {**record, "id": rid}
            self.table(tbl)[rid] = record
            self._db.execute(
                "INSERT OR REPLACE INTO sequences (tbl, last_id) VALUES (?, ?)",
                (tbl, self._seq[tbl]),
            )
            self._write(tbl, record)
            return record

    def put(self, tbl: str, record: Record) -> Record:
        with self._lock:
            self.table(tbl)[record["id"]] = record
            self._write(tbl, record)
            return record

    def update(self, tbl: str, rid: int, **changes: Any) -> Record:
        with self._lock:
            record = {**self.table(tbl)[rid], **changes}
            return self.put(tbl, record)

    def delete(self, tbl: str, rid: int) -> None:
        with self._lock:
            self.table(tbl).pop(rid, None)
            self.writes += 1
            self._db.execute("DELETE FROM records WHERE tbl = ? AND id = ?", (tbl, rid))
            self._commit()

    def clear(self) -> None:
        with self._lock:
            self.tables.clear()
            self._seq.clear()
            self._db.executescript("DELETE FROM records; DELETE FROM sequences; DELETE FROM meta;")
            self._db.commit()

    def _write(self, tbl: str, record: Record) -> None:
        self.writes += 1
        self._db.execute(
            "INSERT OR REPLACE INTO records (tbl, id, body) VALUES (?, ?, ?)",
            (tbl, record["id"], json.dumps(record, separators=(",", ":"))),
        )
        self._commit()

    def _commit(self) -> None:
        if self._batch_depth == 0:
            self._db.commit()

    # -- meta ------------------------------------------------------------------------

    def get_meta(self, key: str) -> str | None:
        with self._lock:
            row = self._db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
            return None if row is None else str(row[0])

    def set_meta(self, key: str, value: str) -> None:
        with self._lock:
            self._db.execute("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)", (key, value))
            self._commit()
