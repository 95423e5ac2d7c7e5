"""What an `ApplySession` leaves behind when it ends: the apply lock of its services is
free again (a program that plans, then applies, in one process, or applies twice, is not
refused by its own first session), whether the session ended normally or with an error;
and the apply log is written where `--log` says, folders made as needed."""

from __future__ import annotations

import asyncio
import json
import tempfile
from pathlib import Path

import pytest

from reconciler.applying.lock import ApplyLock
from reconciler.applying.log import ApplyLog
from reconciler.applying.session import ApplySession
from reconciler.manifest import load_manifests
from tests.applying.inprocess import EXAMPLE, asgi, connection, seeded

URLS = ["http://127.0.0.1/helpdesk", "http://127.0.0.1/workspace"]


def test_a_session_that_ended_holds_no_lock() -> None:
    state, credentials = seeded("acme")
    desired = load_manifests([EXAMPLE], env={})
    where = Path(tempfile.mkdtemp(prefix="reconciler-session-"))

    def opened() -> ApplySession:
        return ApplySession(
            desired,
            connection(credentials),
            transport=asgi(state),
            log_path=where / "apply.jsonl",
            lock_directory=where,
        )

    async def main() -> None:
        async with opened() as first:
            await first.plan()
        async with opened() as second:  # the same process, the same services: not refused
            await second.plan()
        with pytest.raises(RuntimeError):
            async with opened():
                raise RuntimeError("ended by an error")

    asyncio.run(main())
    with ApplyLock(URLS, directory=where, timeout=0):  # another apply may start at once
        pass


def test_the_apply_log_makes_the_folders_it_is_given(tmp_path: Path) -> None:
    path = tmp_path / "logs" / "nightly" / "apply.jsonl"  # as `apply --log logs/nightly/...`
    with ApplyLog(path) as log:
        log.event("start")
    assert [json.loads(line)["event"] for line in path.read_text().splitlines()] == ["start"]
