"""Run the sandbox under uvicorn: in the foreground (`reconciler sandbox serve`) or in a
background thread on a free loopback port (tests, `--sandbox`); and one sandbox per
database.

`sandbox serve` and `--sandbox` both default to `.reconciler/sandbox.db`, and two servers
on one SQLite file would each keep their own idea of it (ids, credentials, the request
log). Whichever starts first holds an exclusive lock on `<db>.lock` while it runs; the
other is refused with a message saying what to do (`exclusive_db`).
"""

from __future__ import annotations

import logging
import socket
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import uvicorn
from filelock import FileLock, Timeout
from starlette.types import ASGIApp

from reconciler.errors import UsageError
from reconciler.sandbox.app import create_app
from reconciler.sandbox.errors import ConnectionDropped
from reconciler.sandbox.state import SandboxState


class _HideDroppedConnections(logging.Filter):
    """The injected dropped connection is a feature, not an error worth a traceback."""

    def filter(self, record: logging.LogRecord) -> bool:
        exc = record.exc_info[1] if record.exc_info else None
        return not isinstance(exc, ConnectionDropped)


def uvicorn_server(app: ASGIApp) -> uvicorn.Server:
    """uvicorn for the sandbox, run on sockets of `listen`: warnings only, no access log."""
    logging.getLogger("uvicorn.error").addFilter(_HideDroppedConnections())
    return uvicorn.Server(
        uvicorn.Config(app, log_level="warning", access_log=False, lifespan="off")
    )


def listen(host: str, port: int) -> tuple[socket.socket, str]:
    """A listening socket on `host`:`port` (0: a free port), and its base URL."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    # IPPROTO_TCP explicitly: asyncio sets TCP_NODELAY only on sockets that say they are TCP,
    # and without it every keep-alive answer waits ~40 ms for a delayed ACK.
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError as exc:
        raise UsageError(f"cannot listen on {host}:{port}: {exc.strerror}") from None
    sock.listen(128)
    bound_port = sock.getsockname()[1]
    return sock, f"http://{host if ':' not in host else f'[{host}]'}:{bound_port}"


class SandboxServer:
    """A sandbox served by uvicorn in a daemon thread, on a free loopback port; a context
    manager.

    >>> with SandboxServer(SandboxState()) as server:
    ...     server.helpdesk_url  # http://127.0.0.1:PORT/helpdesk
    """

    def __init__(self, state: SandboxState) -> None:
        self.state = state
        self._sock, self.url = listen("127.0.0.1", 0)
        self._server = uvicorn_server(create_app(state))
        run = {"sockets": [self._sock]}
        self._thread = threading.Thread(target=self._server.run, kwargs=run, daemon=True)

    @property
    def helpdesk_url(self) -> str:
        return f"{self.url}/helpdesk"

    @property
    def workspace_url(self) -> str:
        return f"{self.url}/workspace"

    def start(self) -> SandboxServer:
        self._thread.start()
        deadline = time.monotonic() + 10
        while not self._server.started:
            if not self._thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError(f"the sandbox did not start on {self.url}")
            time.sleep(0.01)
        return self

    def stop(self) -> None:
        self._server.should_exit = True
        self._thread.join(timeout=10)
        self._sock.close()
        self.state.store.close()

    def __enter__(self) -> SandboxServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


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
        held = lock.acquire()
    except Timeout:
        raise UsageError(
            f"another sandbox is running on {db} (a `reconciler sandbox serve`?): use it "
            "through the HELPDESK_URL/WORKSPACE_URL it printed, or stop it (or give "
            "`sandbox serve` another --db)"
        ) from None
    with held:
        yield


def _refuse_other_files(db: Path) -> None:
    if not db.is_file():
        return
    with db.open("rb") as file:
        start = file.read(len(SQLITE_HEADER))
    if start and start != SQLITE_HEADER:  # an empty file becomes a new database
        raise UsageError(f"the sandbox database {db}: file is not a database")
