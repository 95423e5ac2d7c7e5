"""One sandbox per database: `sandbox serve` and `--sandbox` both default to
`.reconciler/sandbox.db`, and two servers on one SQLite file would each keep their own
idea of it (ids, credentials, the request log). Whichever starts first holds an exclusive
lock on `<db>.lock` while it runs; the other is refused with a message saying what to do.
"""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from filelock import FileLock, Timeout

from reconciler.errors import UsageError

SQLITE_HEADER = b"SQLite format 3\x00"  # the first 16 bytes of every SQLite database


@contextmanager
def exclusive_db(db: Path) -> Iterator[None]:
    """Hold `db` for this sandbox alone, or raise `UsageError` when another one runs on it.
    A file that is no SQLite database is refused first, so that no lock file is left
    beside a file that was never the sandbox's."""
    _refuse_other_files(db)
    try:
        db.parent.mkdir(parents=True, exist_ok=True)
        # filelock takes a lock file it cannot create for one another sandbox holds.
        with tempfile.TemporaryFile(dir=db.parent):
            pass
    except OSError as exc:  # a read-only folder, a file where the folder should be
        raise UsageError(
            f"the sandbox database {db} cannot be made: {exc.strerror or type(exc).__name__} "
            "(run from a folder that can be written, or give `sandbox serve` a --db there)"
        ) from None
    lock = FileLock(str(db) + ".lock", timeout=0)
    try:
        lock.acquire()
    except Timeout:
        raise UsageError(
            f"another sandbox is running on {db} (a `reconciler sandbox serve`?): use it "
            "through the HELPDESK_URL/WORKSPACE_URL it printed, or stop it (or give "
            "`sandbox serve` another --db)"
        ) from None
    try:
        yield
    finally:
        lock.release()


def _refuse_other_files(db: Path) -> None:
    if not db.is_file():
        return
    with db.open("rb") as file:
        start = file.read(len(SQLITE_HEADER))
    if start and start != SQLITE_HEADER:  # an empty file becomes a new database
        raise UsageError(f"the sandbox database {db}: file is not a database")
