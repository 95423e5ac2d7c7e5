"""Every answer is bounded as a whole: `--timeout SECONDS` bounds an attempt's whole
answer (its head, its body, the `100 Continue`s before it), not each read, so a server
that drips a byte at a time ends the run within about 2 x SECONDS, naming the endpoint and
the timeout; and an answer's decoded body stops at 64 MiB, a gzip bomb included, without
reading the rest, and is not asked for again (a create's is an unknown outcome). Servers on
127.0.0.1 (servers.py), and the client in-process on a mock transport."""

from __future__ import annotations

import asyncio
import gzip
import socket
import threading
import time
import zlib
from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest

from reconciler.clients import BasicAuth, HelpdeskClient, RateLimits, RetryPolicy
from reconciler.errors import ApiError, OutcomeUnknown, TransportFailure
from reconciler.sandbox.process import SandboxProcess
from tests.clients.conftest import Sleeper
from tests.e2e.test_plan_cli import run
from tests.hardening.servers import Answer, continue_forever, drip, raw_server
from tests.hardening.table import OK, basic_env

SLOW_BODY = drip(
    b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n",
    b" " * 1000,
)
SLOW_HEAD = drip(b"", b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{}")


@pytest.mark.parametrize(
    "answer",
    [SLOW_BODY, SLOW_HEAD, continue_forever],
    ids=["a body a byte at a time", "a head a byte at a time", "100 Continue forever"],
)
def test_a_dripping_answer_ends_within_the_timeout(
    answer: Answer, sandbox: SandboxProcess, tmp_path: Path
) -> None:
    env = basic_env(sandbox, tmp_path)
    (tmp_path / "m.yaml").write_text(OK, encoding="utf-8")
    with raw_server(answer) as server:
        env["HELPDESK_URL"] = server.url
        started = time.monotonic()
        result = run(tmp_path, "plan", "m.yaml", "--timeout", "2", env=env)
        took = time.monotonic() - started
    assert result.returncode == 1, result.stderr
    assert "internal error" not in result.stderr and "Traceback" not in result.stderr
    line = result.stderr.strip().splitlines()[-1]
    assert line.startswith("Error: POST /api/Authorization: no usable answer from 127.0.0.1:"), line
    assert "no answer within the timeout (2 s, --timeout SECONDS)" in line, line
    # Two attempts of at most 2 s each, and a process start: far below the minute the
    # server would drip for.
    assert took < 20, took
    assert [method for method, _ in server.requests] == ["POST", "POST"]


LOGIN = b'{"UserID": 1, "Username": "admin", "IsAdmin": true}'
MIB = 1024 * 1024


def _endless(gzipped: bool, sent: list[int]) -> Answer:
    """The login answered as the helpdesk does; every other request answered with an
    endless body of zeros (gzip-compressed: a bomb of about 1,000 to 1), chunked, for at
    most 1 GiB decoded; `sent` counts the MiB sent before the client stopped reading."""
    login = (
        b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
        + f"Content-Length: {len(LOGIN)}\r\n\r\n".encode()
        + LOGIN
    )

    def answer(connection: socket.socket, head: bytes, stop: threading.Event) -> None:
        while b"Authorization" in head.split(b"\r\n", 1)[0]:
            connection.sendall(login)
            head = b""
            while b"\r\n\r\n" not in head:
                data = connection.recv(65536)
                if not data:
                    return
                head += data
        encoding = b"Content-Encoding: gzip\r\n" if gzipped else b""
        connection.sendall(
            b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n" + encoding
            + b"Transfer-Encoding: chunked\r\n\r\n"
        )  # fmt: skip
        compressor = zlib.compressobj(wbits=31) if gzipped else None
        block = b"0" * MIB
        for _ in range(1024):
            if stop.is_set():
                return
            data = block if compressor is None else compressor.compress(block)
            data += b"" if compressor is None else compressor.flush(zlib.Z_SYNC_FLUSH)
            connection.sendall(f"{len(data):x}\r\n".encode() + data + b"\r\n")
            sent[0] += 1
        connection.sendall(b"0\r\n\r\n")

    return answer


@pytest.mark.parametrize("gzipped", [False, True], ids=["plain", "gzip bomb"])
def test_an_endless_answer_stops_at_the_bound(
    gzipped: bool, sandbox: SandboxProcess, tmp_path: Path
) -> None:
    env = basic_env(sandbox, tmp_path)
    (tmp_path / "m.yaml").write_text(OK, encoding="utf-8")
    sent = [0]
    with raw_server(_endless(gzipped, sent)) as server:
        env["HELPDESK_URL"] = server.url
        result = run(tmp_path, "plan", "m.yaml", env=env)
    assert result.returncode == 1, result.stderr
    line = result.stderr.strip().splitlines()[-1]
    assert line.startswith("Error: GET /api/"), line
    assert "the helpdesk's answer from 127.0.0.1:" in line, line
    assert "is larger than 64 MiB, the most one answer may hold: refused" in line, line
    # Read up to the bound and a little past it (what was in flight), never the GiB.
    assert 64 <= sent[0] < 512, sent[0]


def test_the_gzip_bomb_of_the_test_is_one() -> None:
    """The compressed stream of the test above decodes to far more than it sends."""
    compressor = zlib.compressobj(wbits=31)
    data = compressor.compress(b"0" * MIB) + compressor.flush()
    assert len(data) < MIB // 500 and gzip.decompress(data) == b"0" * MIB


TOO_LARGE = (
    "the helpdesk's answer from h.example.test:80 is larger than 64 MiB, the most one "
    "answer may hold: refused"
)
MAYBE_DONE = "the write may or may not have happened: re-read before trying again"


@pytest.mark.parametrize(
    ("method", "path", "write", "idempotent", "error", "message"),
    [
        ("GET", "Companies", False, True, TransportFailure, f"GET /api/Companies: {TOO_LARGE}"),
        ("POST", "UpdateCompany", True, True, ApiError,
         f"POST /api/UpdateCompany failed: {TOO_LARGE}"),
        ("POST", "Asset", True, False, OutcomeUnknown,
         f"POST /api/Asset failed: {TOO_LARGE}; {MAYBE_DONE}"),
    ],
    ids=["a read", "an idempotent write", "a create"],
)  # fmt: skip
def test_an_answer_past_the_bound_is_refused_once_and_not_asked_again(
    method: str, path: str, write: bool, idempotent: bool, error: type[Exception], message: str
) -> None:
    """In-process: a read or an update is refused as it would be as large again; a create
    may have been made (its answer was lost), so it is an unknown outcome."""
    sent: list[str] = []

    async def endless() -> AsyncIterator[bytes]:
        block = b"0" * MIB
        for _ in range(65):
            yield block

    def handler(request: httpx.Request) -> httpx.Response:
        if request.url.path.endswith("/Authorization"):
            return httpx.Response(200, json={"UserID": 1})
        sent.append(request.url.path)
        return httpx.Response(200, content=endless())

    async def scenario() -> None:
        async with HelpdeskClient(
            "http://h.example.test",
            BasicAuth("admin", "pw"),
            transport=httpx.MockTransport(handler),
            limits=RateLimits(general=0, search=0),
            retry=RetryPolicy(sleep=Sleeper()),
        ) as client:
            await client.request(method, path, {"id": 1}, write=write, idempotent=idempotent)

    with pytest.raises(error) as caught:
        asyncio.run(scenario())
    assert type(caught.value) is error and str(caught.value) == message
    assert sent == [f"/api/{path}"]
