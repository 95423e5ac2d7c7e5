"""A server that does not answer as the spec says ends the run with one line: a listing of
`[{}]` or a NaN id (`MalformedAnswer`), a server that accepts and never answers (bounded by
`--timeout` or RECONCILER_TIMEOUT, the progress line saying what it waits for), an answer
nested past the JSON parser's depth, a `next` link that is no address. The sandbox stays
on loopback, and logs a client that gave up without a traceback. Rows as
tests/hardening/table.py runs them."""

# ruff: noqa: E501  (a row is one line, whatever its length: adding a case is adding a line)

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from reconciler.clients import WorkspaceClient
from reconciler.errors import ApiError
from reconciler.sandbox.process import SandboxProcess
from tests.e2e.test_plan_cli import run
from tests.hardening.servers import answering_server
from tests.hardening.table import NAN_ID, NO_ID, OK, SILENT, Row, basic_env, check_rows, run_row

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
        with pytest.raises(httpx.TimeoutException) as gave_up:
            httpx.post(
                f"{sandbox.workspace_url}/api/employees",
                json={"email": "a@acme.com"},
                headers=key,
                timeout=0.2,
            )
        # httpx's own error, not ours to word: its kind says the answer, not the connection,
        # was waited for in vain.
        assert type(gave_up.value) is httpx.ReadTimeout
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


@pytest.mark.parametrize("depth", [990, 100_000])
def test_an_answer_nested_too_deeply_is_one_line(
    depth: int, sandbox: SandboxProcess, tmp_path: Path
) -> None:
    env = basic_env(sandbox, tmp_path)
    (tmp_path / "m.yaml").write_text(OK, encoding="utf-8")
    with answering_server("[" * depth + "]" * depth) as server:
        env["HELPDESK_URL"] = server.url
        result = run(tmp_path, "plan", "m.yaml", env=env)
    assert result.returncode == 1
    assert result.stderr.startswith(
        "Error: GET /api/Companies failed: expected a list of objects, got text: [[[["
    ), result.stderr
    assert len(result.stderr.splitlines()) == 1


@pytest.mark.anyio
@pytest.mark.parametrize(
    "link", ["http://127.0.0.1:bad/api/employees?page=2", "http://[::1/api/employees?page=2"]
)
async def test_a_next_link_that_is_no_address_is_one_error(link: str) -> None:
    def answer(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, json={"data": [{"id": "1"}], "next": link})

    async with WorkspaceClient(
        "http://127.0.0.1:9", "key", transport=httpx.MockTransport(answer)
    ) as client:
        with pytest.raises(ApiError) as failed:
            await client.employees()
    assert str(failed.value) == (
        "GET /api/employees failed: the list's next link is not a valid address"
    )
