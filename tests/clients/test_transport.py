"""The clients' own HTTP/1.1 transport (reconciler/clients/transport.py) against a tiny
server in the test (rawserver.py): keep-alive, connections the server closes, broken and
unusual answers, timeouts, the pool's limit, and closing without leaks."""

from __future__ import annotations

import asyncio
import gc
import socket
import ssl
import warnings
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import httpx
import pytest

from reconciler.clients.transport import Transport
from reconciler.clients.unreachable import REFUSED, unreachable
from tests.clients.rawserver import CLOSE, RESET, THEN_CLOSE, RawServer, Seen, answer, chunked

Check = Callable[[RawServer, httpx.AsyncClient], Awaitable[None]]


def run(check: Check, handle: Any = None, limit: int = 4, timeout: float = 30.0) -> RawServer:
    """`check(server, client)` with a client on a fresh `Transport` (at most `limit`
    connections); then the client is closed, and no connection, task or warning is left."""

    async def main() -> RawServer:
        options = {} if handle is None else {"handle": handle}
        async with RawServer(**options) as server:
            limits = httpx.Limits(max_connections=limit, max_keepalive_connections=limit)
            transport = Transport(ssl.create_default_context(), limits)
            async with httpx.AsyncClient(
                base_url=server.url, transport=transport, timeout=timeout
            ) as client:
                await check(server, client)
            assert not transport._open, "connections left open after the client closed"
            await settle(lambda: server.open == 0)
        assert asyncio.all_tasks() == {asyncio.current_task()}
        return server

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", ResourceWarning)
        server = asyncio.run(main())
        gc.collect()
    assert [str(w.message) for w in caught] == []
    return server


async def settle(done: Callable[[], bool]) -> None:
    """Let the event loop run until `done()` (the other end of a socket caught up)."""
    for _ in range(100_000):
        if done():
            return
        await asyncio.sleep(0)
    raise AssertionError("the other end never caught up")


def test_one_connection_is_kept_alive_for_requests_in_turn() -> None:
    async def check(server: RawServer, client: httpx.AsyncClient) -> None:
        for number in range(5):
            response = await client.post("/api/Company", data={"name": f"C{number}"})
            assert response.status_code == 200
            assert response.json() == {"echo": len(f"name=C{number}")}
            assert response.http_version == "HTTP/1.1"
            assert response.reason_phrase == "Whatever"

    server = run(check)
    assert server.connections == 1
    assert [s.method for s in server.seen] == [b"POST"] * 5
    assert server.seen[0].target == b"/api/Company"
    assert server.seen[0].headers[b"content-type"] == b"application/x-www-form-urlencoded"
    assert server.seen[0].body == b"name=C0"


def test_an_idle_connection_the_server_closed_is_replaced_without_an_error() -> None:
    async def check(server: RawServer, client: httpx.AsyncClient) -> None:
        assert (await client.get("/api/a")).status_code == 200
        # The server ends the kept-alive connection while it is idle (its keep-alive
        # timeout): the next request goes on a fresh connection.
        await server.end_connections()
        assert (await client.get("/api/b")).status_code == 200
        assert (await client.get("/api/c")).status_code == 200

    server = run(check)
    assert [s.connection for s in server.seen] == [0, 1, 1]


def test_an_answer_saying_close_ends_the_connection() -> None:
    async def handle(seen: Seen) -> bytes:
        return answer(200, b"{}", "Connection: close")

    async def check(server: RawServer, client: httpx.AsyncClient) -> None:
        for _ in range(3):
            assert (await client.get("/api/a")).status_code == 200

    assert run(check, handle).connections == 3


@pytest.mark.parametrize(
    ("raw", "error"),
    [
        (CLOSE, httpx.RemoteProtocolError),  # closed before answering
        (
            answer(200, b"")[:-4] + b"\r\nContent-Length: 20\r\n\r\n{partial",
            httpx.RemoteProtocolError,
        ),
        (
            answer(200, b"", "Transfer-Encoding: chunked", length=False) + b"5\r\nabc",
            httpx.RemoteProtocolError,
        ),
        (b"HTTP/1.1 2OO OK\r\n\r\n", httpx.RemoteProtocolError),  # not HTTP
        (
            b"HTTP/1.1 200 OK\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n",
            httpx.RemoteProtocolError,
        ),
        (RESET, httpx.ReadError),  # connection reset
    ],
    ids=["closed", "short-body", "short-chunks", "garbage", "two-lengths", "reset"],
)
def test_an_answer_cut_short_or_broken_is_an_httpx_error(raw: bytes | None, error: type) -> None:
    async def handle(seen: Seen) -> bytes | None:
        if seen.method == b"GET":
            return answer(200, b"{}")
        if raw is CLOSE or raw == RESET:
            return raw
        return raw + THEN_CLOSE

    async def check(server: RawServer, client: httpx.AsyncClient) -> None:
        assert (await client.get("/api/a")).status_code == 200  # a kept-alive connection
        with pytest.raises(error):
            await client.post("/api/Company", data={"name": "A"})
        # Not sent again here (the sender decides), and the client goes on.
        assert [s.method for s in server.seen] == [b"GET", b"POST"]
        assert (await client.get("/api/a")).status_code == 200

    run(check, handle)


def test_connection_refused_is_a_connect_error_naming_the_cause() -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]  # free now, and nothing listens once closed

    async def main() -> None:
        limits = httpx.Limits(max_connections=1, max_keepalive_connections=1)
        transport = Transport(ssl.create_default_context(), limits)
        async with httpx.AsyncClient(transport=transport) as client:
            with pytest.raises(httpx.ConnectError) as caught:
                await client.get(f"http://127.0.0.1:{port}/api/x")
        assert unreachable(caught.value) == REFUSED
        assert caught.value.request.url.port == port

    asyncio.run(main())


def test_no_answer_within_the_read_timeout_is_a_read_timeout() -> None:
    never = asyncio.Event()

    async def handle(seen: Seen) -> bytes:
        await never.wait()
        return b""

    async def check(server: RawServer, client: httpx.AsyncClient) -> None:
        with pytest.raises(httpx.ReadTimeout):
            await client.get("/api/slow", timeout=httpx.Timeout(30.0, read=0.5))
        never.set()  # the server's side may end now

    run(check, handle)


def test_chunked_answers_and_chunked_requests() -> None:
    async def handle(seen: Seen) -> bytes:
        assert seen.headers.get(b"transfer-encoding") == b"chunked"
        body = chunked(b'{"got": ', str(len(seen.body)).encode(), b"}")
        return answer(200, body, "Transfer-Encoding: chunked", length=False)

    async def parts() -> AsyncIterator[bytes]:
        for number in range(100):
            yield b"x" * number

    async def check(server: RawServer, client: httpx.AsyncClient) -> None:
        for _ in range(2):
            response = await client.post("/api/upload", content=parts())
            assert response.json() == {"got": sum(range(100))}

    assert run(check, handle).connections == 1


@pytest.mark.parametrize(
    ("method", "status", "headers"),
    [
        ("HEAD", 200, ("Content-Length: 1234",)),
        ("GET", 204, ()),
        ("GET", 304, ("Content-Length: 99",)),
    ],
)
def test_answers_without_a_body(method: str, status: int, headers: tuple[str, ...]) -> None:
    async def handle(seen: Seen) -> bytes:
        if seen.target == b"/api/next":
            return answer(200, b'{"next": true}')
        return answer(status, b"", *headers, length=False)

    async def check(server: RawServer, client: httpx.AsyncClient) -> None:
        response = await client.request(method, "/api/none")
        assert (response.status_code, response.content) == (status, b"")
        # The connection is read exactly to the answer's end: the next one parses.
        assert (await client.get("/api/next")).json() == {"next": True}

    assert run(check, handle).connections == 1


def test_large_bodies_both_ways() -> None:
    big = bytes(range(256)) * 32 * 1024  # 8 MiB

    async def handle(seen: Seen) -> bytes:
        assert seen.body == big
        return answer(200, big[::-1])

    async def check(server: RawServer, client: httpx.AsyncClient) -> None:
        response = await client.post("/api/big", content=big)
        assert response.content == big[::-1]

    run(check, handle)


def test_at_most_the_pool_size_is_in_flight_and_the_rest_wait() -> None:
    state = {"now": 0, "most": 0, "done": 0}
    changed = asyncio.Event()
    total, limit = 9, 3

    async def handle(seen: Seen) -> bytes:
        state["now"] += 1
        state["most"] = max(state["most"], state["now"])
        changed.set()
        # Hold each answer until the pool is full (or nothing more can come).
        while state["now"] < limit and state["now"] + state["done"] < total:
            changed.clear()
            await changed.wait()
        state["now"] -= 1
        state["done"] += 1
        changed.set()
        return answer(200, b"{}")

    async def check(server: RawServer, client: httpx.AsyncClient) -> None:
        answers = await asyncio.gather(*(client.get(f"/api/{n}") for n in range(total)))
        assert [a.status_code for a in answers] == [200] * total

    server = run(check, handle, limit=limit)
    assert state["most"] == limit
    assert server.connections == limit


def test_a_request_waiting_for_the_pool_past_its_timeout_is_a_pool_timeout() -> None:
    release = asyncio.Event()

    async def handle(seen: Seen) -> bytes:
        await release.wait()
        return answer(200, b"{}")

    async def check(server: RawServer, client: httpx.AsyncClient) -> None:
        first = asyncio.create_task(client.get("/api/held"))
        await settle(lambda: len(server.seen) == 1)
        with pytest.raises(httpx.PoolTimeout):
            await client.get("/api/waits", timeout=httpx.Timeout(30.0, pool=0.3))
        release.set()
        assert (await first).status_code == 200

    server = run(check, handle, limit=1)
    assert [s.target for s in server.seen] == [b"/api/held"]  # the second never left


def test_closing_the_client_closes_its_idle_connections() -> None:
    async def check(server: RawServer, client: httpx.AsyncClient) -> None:
        await asyncio.gather(*(client.get(f"/api/{n}") for n in range(4)))
        assert server.open >= 1

    server = run(check)  # `run` checks no connection, task or ResourceWarning is left
    assert sorted(server.closed) == list(range(server.connections))


def test_a_cancelled_request_drops_its_connection() -> None:
    release = asyncio.Event()

    async def handle(seen: Seen) -> bytes:
        if seen.target == b"/api/held":
            await release.wait()
        return answer(200, b"{}")

    async def check(server: RawServer, client: httpx.AsyncClient) -> None:
        held = asyncio.create_task(client.get("/api/held"))
        await settle(lambda: len(server.seen) == 1)
        held.cancel()
        with pytest.raises(asyncio.CancelledError):
            await held
        release.set()
        await settle(lambda: server.closed == [0])  # half an exchange is not reused
        assert (await client.get("/api/next")).status_code == 200

    assert run(check, handle).connections == 2
