"""The transport's connection pool as a server sees it (rawserver.py): a request that
asks to close its connection is the last on it; at most `max_keepalive_connections` are
kept idle; an idle connection older than `keepalive_expiry` is not used again; and at
`max_connections` open, the idle connection unused longest is closed for a new origin."""

from __future__ import annotations

import asyncio
import ssl

import httpx
import pytest

from reconciler.clients.transport import Transport
from tests.clients.rawserver import CLOSE, THEN_CLOSE, RawServer, Seen, answer
from tests.clients.test_transport import run, settle


def test_a_request_saying_close_is_the_last_on_its_connection() -> None:
    async def check(server: RawServer, client: httpx.AsyncClient) -> None:
        for _ in range(2):
            response = await client.get("/api/a", headers={"Connection": "close"})
            assert response.status_code == 200  # the server answers keep-alive
        assert (await client.get("/api/b")).status_code == 200

    server = run(check)
    assert [s.connection for s in server.seen] == [0, 1, 2]


def test_at_most_max_keepalive_connections_are_kept_idle() -> None:
    release = asyncio.Event()

    async def handle(seen: Seen) -> bytes:
        if seen.target.startswith(b"/api/held"):
            await release.wait()
        return answer(200, b"{}")

    async def main() -> RawServer:
        async with RawServer(handle) as server:
            limits = httpx.Limits(max_connections=4, max_keepalive_connections=1)
            transport = Transport(ssl.create_default_context(), limits)
            async with httpx.AsyncClient(base_url=server.url, transport=transport) as client:
                held = [asyncio.create_task(client.get(f"/api/held{n}")) for n in range(3)]
                await settle(lambda: len(server.seen) == 3)
                release.set()
                assert [(await h).status_code for h in held] == [200] * 3
                await settle(lambda: server.open == 1)  # two of the three were closed
                for _ in range(2):
                    assert (await client.get("/api/next")).status_code == 200
            return server

    server = asyncio.run(main())
    assert server.connections == 3
    kept = {s.connection for s in server.seen if s.target.startswith(b"/api/held")}
    assert len(kept) == 3
    assert len({s.connection for s in server.seen if s.target == b"/api/next"}) == 1


def test_an_idle_connection_past_its_expiry_is_not_used_again() -> None:
    async def main() -> RawServer:
        async with RawServer() as server:
            limits = httpx.Limits(max_connections=2, keepalive_expiry=0)
            transport = Transport(ssl.create_default_context(), limits)
            async with httpx.AsyncClient(base_url=server.url, transport=transport) as client:
                for _ in range(3):
                    assert (await client.get("/api/a")).status_code == 200
            return server

    server = asyncio.run(main())
    assert [s.connection for s in server.seen] == [0, 1, 2]


def test_a_connection_is_kept_alive_for_the_default_expiry() -> None:
    async def main() -> RawServer:
        async with RawServer() as server:
            limits = httpx.Limits(max_connections=2, keepalive_expiry=None)
            transport = Transport(ssl.create_default_context(), limits)
            async with httpx.AsyncClient(base_url=server.url, transport=transport) as client:
                for _ in range(3):
                    assert (await client.get("/api/a")).status_code == 200
            return server

    assert asyncio.run(main()).connections == 1


@pytest.mark.parametrize("used_again", [False, True], ids=["in-turn", "first-used-again"])
def test_at_max_connections_the_idle_one_unused_longest_is_closed_for_another_origin(
    used_again: bool,
) -> None:
    async def main() -> tuple[RawServer, RawServer, RawServer]:
        async with RawServer() as one, RawServer() as two, RawServer() as three:
            limits = httpx.Limits(max_connections=2, max_keepalive_connections=2)
            transport = Transport(ssl.create_default_context(), limits)
            async with httpx.AsyncClient(transport=transport) as client:
                assert (await client.get(f"{one.url}/api/a")).status_code == 200
                assert (await client.get(f"{two.url}/api/a")).status_code == 200
                if used_again:
                    assert (await client.get(f"{one.url}/api/b")).status_code == 200
                # Both are idle and kept; a third origin needs a connection: the one
                # unused longest is closed, the other kept.
                older, newer = (two, one) if used_again else (one, two)
                assert (await client.get(f"{three.url}/api/a")).status_code == 200
                await settle(lambda: older.open == 0)
                assert newer.open == 1
                assert (await client.get(f"{newer.url}/api/c")).status_code == 200
            return one, two, three

    one, two, three = asyncio.run(main())
    assert (one.connections, two.connections, three.connections) == (1, 1, 1)


def test_an_idle_connection_the_server_writes_on_unasked_is_not_used_again() -> None:
    async def check(server: RawServer, client: httpx.AsyncClient) -> None:
        assert (await client.get("/api/a")).status_code == 200
        # A stray answer on the idle connection (a server's 408 before it closes, say):
        # whatever the connection holds now, it is no answer to the next request.
        await server.unasked(b"HTTP/1.1 408 Request Timeout\r\nContent-Length: 0\r\n\r\n")
        await settle(lambda: server.closed == [0])
        assert (await client.get("/api/b")).status_code == 200

    server = run(check)
    assert [s.connection for s in server.seen] == [0, 1]


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        (CLOSE, "Server disconnected without sending a response."),  # httpx's words
        (b"HTTP/1.1 200 OK\r\nContent-Le", "closed in the head"),
    ],
    ids=["before-the-answer", "in-the-head"],
)
def test_where_the_server_closed_is_in_the_error(raw: bytes | None, message: str) -> None:
    async def handle(seen: Seen) -> bytes | None:
        return raw if raw is CLOSE else raw + THEN_CLOSE

    async def check(server: RawServer, client: httpx.AsyncClient) -> None:
        with pytest.raises(httpx.RemoteProtocolError) as caught:
            await client.get("/api/a")
        assert str(caught.value) == message

    run(check, handle)
