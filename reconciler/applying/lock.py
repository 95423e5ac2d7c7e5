"""One apply at a time per service (DESIGN §5): an OS file lock (`filelock`) per service
URL, taken before the first read of an apply and held until it ends. The operating system
releases it when the process dies, so a crash never leaves a stale lock behind.

The lock is keyed by the service's address, not by the working directory: two checkouts
applying to one helpdesk exclude each other, however its URL is spelled
(`service_address` in clients/urls.py): the scheme, the host in lower case, the default
port left out, the loopback names (`localhost`, `127.0.0.1`, `::1`) as one,
percent-encoding and repeated or trailing slashes undone, and for the helpdesk (ASP.NET,
which matches paths ignoring case: spec/real-world-notes.md) the path in lower case. Lock
files live in a per-user cache directory (`RECONCILER_LOCK_DIR` overrides it); beside
each, a small JSON file says who holds it (host, pid, start time), for the message a
second apply prints.
"""

from __future__ import annotations

import hashlib
import json
import os
import socket
import tempfile
import time
from collections.abc import Iterable
from contextlib import ExitStack
from pathlib import Path

import filelock

from reconciler.clients.urls import service_address
from reconciler.errors import ReconcilerError

LOCK_DIR_VARIABLE = "RECONCILER_LOCK_DIR"


class ApplyLocked(ReconcilerError):
    """Another apply holds the lock of a service this one would write to."""


class LockUnusable(ReconcilerError):
    """The lock directory cannot be written (read-only, full, not a directory)."""


def lock_directory() -> Path:
    """`RECONCILER_LOCK_DIR`, else the platform's per-user cache directory, else a
    per-user directory in the temporary directory (a home that cannot be written)."""
    configured = os.environ.get(LOCK_DIR_VARIABLE)
    if configured:
        return Path(configured)
    import platformdirs

    candidates = [
        Path(platformdirs.user_cache_dir("reconciler", appauthor=False)) / "locks",
        Path(tempfile.gettempdir()) / f"reconciler-locks-{_user()}",
    ]
    for candidate in candidates:
        try:
            candidate.mkdir(parents=True, exist_ok=True, mode=0o700)
        except OSError:
            continue
        if os.access(candidate, os.W_OK):
            return candidate
    raise ApplyLocked(
        f"no directory for the apply lock can be written: set {LOCK_DIR_VARIABLE} to one"
    )


def lock_key(address: str) -> str:
    """The name of an address's lock file: the same for every spelling of it."""
    return hashlib.sha256(service_address(address).encode()).hexdigest()[:24]


class ApplyLock:
    """`with ApplyLock(urls, timeout=...)`: every service's lock, taken in a fixed order
    (so two applies naming the same services never wait on each other in a circle), or
    `ApplyLocked` naming the holder once `timeout` seconds have passed (0: at once)."""

    def __init__(
        self, urls: Iterable[str], *, timeout: float = 0, directory: Path | None = None
    ) -> None:
        self.urls = sorted(set(urls), key=lock_key)
        self.timeout = timeout
        self.directory = directory
        self._stack = ExitStack()

    def __enter__(self) -> ApplyLock:
        directory = self.directory or lock_directory()
        try:
            _check_writable(directory)
            for url in self.urls:
                self._take(directory, url)
        except OSError as exc:  # read-only, full, not a directory (filelock.Timeout is taken)
            self._stack.close()
            reason = exc.strerror or type(exc).__name__
            raise LockUnusable(
                f"the apply lock cannot be taken in {directory}: {reason}; set "
                f"{LOCK_DIR_VARIABLE} to a directory that can be written"
            ) from None
        except BaseException:
            self._stack.close()
            raise
        return self

    def _take(self, directory: Path, url: str) -> None:
        path = directory / f"apply-{lock_key(url)}.lock"
        lock = filelock.FileLock(path, thread_local=False)  # acquire() is given the timeout
        try:
            lock.acquire(timeout=self.timeout, poll_interval=0.2)
        except filelock.Timeout:
            raise ApplyLocked(_held_message(_holder_path(path), self.timeout)) from None
        self._stack.callback(lock.release)
        holder = _holder_path(path)
        _write_holder(holder, url)
        self._stack.callback(holder.unlink, missing_ok=True)

    def __exit__(self, *exc: object) -> None:
        self._stack.close()


def _check_writable(directory: Path) -> None:
    """Raises OSError unless a file can be made in `directory`: filelock would otherwise
    wait on a lock it can never create as if another apply held it."""
    directory.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryFile(dir=directory):
        pass


def _holder_path(lock_path: Path) -> Path:
    return lock_path.with_suffix(".holder.json")


def _write_holder(path: Path, url: str) -> None:
    started = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    record = {"host": socket.gethostname(), "pid": os.getpid(), "started": started, "url": url}
    partial = path.with_name(path.name + ".partial")
    partial.write_bytes(json.dumps(record).encode())
    partial.replace(path)


def _held_message(holder: Path, timeout: float) -> str:
    waited = f" after waiting {timeout:g} s" if timeout > 0 else ""
    try:
        record = json.loads(holder.read_bytes())
        who = (
            f"process {int(record['pid'])} on {str(record['host'])[:100]}, "
            f"started {str(record['started'])[:40]}"
        )
        service = f" for {str(record['url'])[:200]}"
    except (OSError, ValueError, KeyError, TypeError):
        who, service = "another process (it has not said who yet)", ""
    return (
        f"another apply is running{service}: {who}; refused{waited}. Wait for it to end "
        "(or give --lock-timeout SECONDS to wait), then apply again: it plans afresh"
    )


def _user() -> str:
    getuid = getattr(os, "getuid", None)
    return str(getuid()) if getuid is not None else os.environ.get("USERNAME", "user")
