"""A server that does not answer as the spec says ends the run with one line: a listing of
`[{}]` or a NaN id (`MalformedAnswer`), a server that accepts and never answers (bounded by
`--timeout` or RECONCILER_TIMEOUT, the progress line saying what it waits for). The
sandbox stays on loopback, and logs a client that gave up without a traceback. Rows as
tests/hardening/table.py runs them."""

# ruff: noqa: E501  (a row is one line, whatever its length: adding a case is adding a line)

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from reconciler.sandbox.process import SandboxProcess
from tests.hardening.table import NAN_ID, NO_ID, SILENT, Row, check_rows, run_row

ROWS = [
    Row("sandbox serve --host 0.0.0.0", "sandbox serve --host 0.0.0.0 --port 0 --db {tmp}/s.db", 1, "--host 0.0.0.0 is not loopback"),
    Row("listing answered [{}]", "plan m.yaml", 1, "the helpdesk's answer for companies cannot be read: an item has no 'ID'", server=NO_ID),
    Row("listing answered with a NaN id", "plan m.yaml", 1, 'GET /api/Companies failed: expected a list of objects, got text: [{"CompanyID": NaN', server=NAN_ID),
    Row("server accepts and never answers", "plan m.yaml --timeout 2", 1, "POST /api/Authorization: no usable answer from 127.0.0.1:", server=SILENT, env={"RECONCILER_PROGRESS_INTERVAL": "0.3"}, also=("no answer within the timeout", "waiting for the helpdesk to answer POST /api/Authorization")),
    Row("RECONCILER_TIMEOUT as the option", "plan m.yaml", 1, "no answer within the timeout", server=SILENT, env={"RECONCILER_TIMEOUT": "1"}),
]  # fmt: skip


@pytest.mark.parametrize("row", ROWS, ids=[row.id for row in ROWS])
def test_the_row_exits_with_its_message_and_writes_nothing(
    row: Row, sandbox: SandboxProcess, tmp_path: Path
) -> None:
    run_row(row, sandbox, tmp_path)


def test_the_rows_have_unique_ids_and_known_setups() -> None:
    check_rows(ROWS)


def test_no_client_disconnect_traceback_under_the_slow_fault(tmp_path: Path) -> None:
    """A client that gives up on a slow answer (its timeout) leaves the sandbox's log
    saying so, and its stderr without a `ClientDisconnect` traceback."""
    sandbox = SandboxProcess(tmp_path / "s.db", "--faults", "slow=1,slow_seconds=1.5").start()
    try:
        key = {"X-API-Key": sandbox.env["WORKSPACE_API_KEY"]}
        with pytest.raises(httpx.TimeoutException):
            httpx.post(
                f"{sandbox.workspace_url}/api/employees",
                json={"email": "a@acme.com"},
                headers=key,
                timeout=0.2,
            )
        deadline = time.monotonic() + 30  # a hang guard: the sandbox logs within seconds
        log: list[dict[str, object]] = []
        while not log and time.monotonic() < deadline:
            log = httpx.get(f"{sandbox.url}/_sandbox/requests").json()
            time.sleep(0.2)
        assert [entry["status"] for entry in log] == ["disconnected"]
    finally:
        proc = sandbox.proc
        assert proc is not None
        proc.terminate()
        _, stderr = proc.communicate(timeout=30)
    assert "Traceback" not in stderr and "ClientDisconnect" not in stderr, stderr


def test_a_remote_host_is_served_with_allow_remote(tmp_path: Path) -> None:
    """The --host refusal has a way through: --allow-remote (checked by its help, as
    listening on 0.0.0.0 would reach beyond 127.0.0.1)."""
    result = subprocess.run(
        [sys.executable, "-m", "reconciler", "sandbox", "serve", "--help"],
        capture_output=True, text=True, timeout=60, cwd=tmp_path,
    )  # fmt: skip
    assert result.returncode == 0 and "--allow-remote" in result.stdout
