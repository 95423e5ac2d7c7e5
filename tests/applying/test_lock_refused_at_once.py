"""Without a lock timeout, a second apply to a service is refused at once (applying/lock.py,
applying/session.py), and the refusal says so whole: who holds the lock, for which
service, and how to wait instead; it does not say it waited."""

from __future__ import annotations

import asyncio
import os
import re
import socket
from pathlib import Path

import pytest

from reconciler.applying.lock import ApplyLock, ApplyLocked
from reconciler.applying.session import ApplySession
from reconciler.manifest.loader import load_manifests
from tests.applying.inprocess import EXAMPLE, asgi, connection, seeded

HELPDESK = "http://127.0.0.1/helpdesk"
STARTED = r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ"


def refusal(url: str) -> re.Pattern[str]:
    holder = f"process {os.getpid()} on {socket.gethostname()}"
    return re.compile(
        f"another apply is running for {re.escape(url)}: {re.escape(holder)}, started "
        f"{STARTED}; refused. Wait for it to end \\(or give --lock-timeout SECONDS to wait\\), "
        "then apply again: it plans afresh"
    )


def test_a_lock_without_a_timeout_refuses_at_once(tmp_path: Path) -> None:
    with (
        ApplyLock([HELPDESK], directory=tmp_path),
        pytest.raises(ApplyLocked) as refused,
        ApplyLock([HELPDESK], directory=tmp_path),
    ):
        pass
    assert refusal(HELPDESK).fullmatch(str(refused.value))


def test_a_session_without_a_lock_timeout_refuses_at_once(tmp_path: Path) -> None:
    state, credentials = seeded("acme")
    session = ApplySession(
        load_manifests([EXAMPLE], env={}),
        connection(credentials),
        transport=asgi(state),
        log_path=tmp_path / "apply.jsonl",
        lock_directory=tmp_path,
    )

    async def enter() -> None:
        async with session:
            pass

    with ApplyLock([HELPDESK], directory=tmp_path), pytest.raises(ApplyLocked) as refused:
        asyncio.run(enter())
    assert refusal(HELPDESK).fullmatch(str(refused.value))
