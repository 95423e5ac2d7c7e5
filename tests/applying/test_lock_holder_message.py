"""What a second apply is told when the lock is held (applying/lock.py): the whole
message, from the holder's own record (process, host, start, service), cut where a record
is too long, and the fallback when the record is missing or unreadable."""

from __future__ import annotations

import json
import os
import re
import socket
import time
from pathlib import Path

import pytest

from reconciler.applying.lock import ApplyLock, ApplyLocked

HELPDESK = "https://acme.example.com/helpdesk"
ADVICE = (
    "Wait for it to end (or give --lock-timeout SECONDS to wait), then apply again: it plans afresh"
)
UNKNOWN = "another process (it has not said who yet)"


def _refusal(tmp_path: Path, record: str | None, timeout: float = 0) -> str:
    with ApplyLock([HELPDESK], directory=tmp_path):
        (holder,) = tmp_path.glob("*.holder.json")
        if record is None:
            holder.unlink()
        else:
            holder.write_text(record, encoding="utf-8")
        with (
            pytest.raises(ApplyLocked) as refused,
            ApplyLock([HELPDESK], timeout=timeout, directory=tmp_path),
        ):
            pass
    return str(refused.value)


def test_the_holder_names_itself(tmp_path: Path) -> None:
    with ApplyLock([HELPDESK], directory=tmp_path):
        (holder,) = tmp_path.glob("*.holder.json")
        record = json.loads(holder.read_text(encoding="utf-8"))
        assert set(record) == {"host", "pid", "started", "url"}
        assert (record["host"], record["pid"], record["url"]) == (
            socket.gethostname(),
            os.getpid(),
            HELPDESK,
        )
        assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", record["started"])
        assert not list(tmp_path.glob("*.partial"))
        with pytest.raises(ApplyLocked) as refused, ApplyLock([HELPDESK], directory=tmp_path):
            pass
    assert str(refused.value) == (
        f"another apply is running for {HELPDESK}: process {os.getpid()} on "
        f"{socket.gethostname()}, started {record['started']}; refused. {ADVICE}"
    )


@pytest.mark.usefixtures("local_time_far_from_utc")
def test_the_holder_says_when_it_started_in_utc(tmp_path: Path) -> None:
    before = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    with ApplyLock([HELPDESK], directory=tmp_path):
        after = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
        (holder,) = tmp_path.glob("*.holder.json")
        started = json.loads(holder.read_text(encoding="utf-8"))["started"]
    assert started in {before, after}


@pytest.mark.parametrize(
    ("record", "shown"),
    [
        (
            {"host": "build-7", "pid": "42", "started": "2026-11-25T20:00:00Z", "url": "u"},
            "another apply is running for u: process 42 on build-7, started "
            f"2026-11-25T20:00:00Z; refused. {ADVICE}",
        ),
        (
            {"host": "h" * 150, "pid": 1, "started": "s" * 50, "url": "x" * 250},
            f"another apply is running for {'x' * 200}: process 1 on {'h' * 100}, started "
            f"{'s' * 40}; refused. {ADVICE}",
        ),
        (
            {"host": "h", "started": "s", "url": "u"},
            f"another apply is running: {UNKNOWN}; refused. {ADVICE}",
        ),
        (
            {"host": "h", "pid": "x", "started": "s", "url": "u"},
            f"another apply is running: {UNKNOWN}; refused. {ADVICE}",
        ),
        (
            {"host": "h", "pid": None, "started": "s", "url": "u"},
            f"another apply is running: {UNKNOWN}; refused. {ADVICE}",
        ),
        ([1, 2], f"another apply is running: {UNKNOWN}; refused. {ADVICE}"),
    ],
)
def test_the_message_from_the_holders_record(tmp_path: Path, record: object, shown: str) -> None:
    assert _refusal(tmp_path, json.dumps(record)) == shown


@pytest.mark.parametrize("record", [None, "", "{not json"])
def test_a_holder_that_has_not_said_who_it_is(tmp_path: Path, record: str | None) -> None:
    assert _refusal(tmp_path, record) == f"another apply is running: {UNKNOWN}; refused. {ADVICE}"


def test_the_wait_is_said_when_there_was_one(tmp_path: Path) -> None:
    assert _refusal(tmp_path, None, timeout=0.25) == (
        f"another apply is running: {UNKNOWN}; refused after waiting 0.25 s. {ADVICE}"
    )
