"""The transport's edges no other test reaches, each as a caller meets it: a request on a
closed transport or of a scheme it does not speak, a request body framed by chunks or
not matching its stated length, a server that never finishes the handshake or never
reads, an answer framed by the close that ends in a reset, and a TLS server reached by
address with the host name to check given as `sni_hostname`."""

from __future__ import annotations

import asyncio
import contextlib
import socket
import ssl
import struct
from collections.abc import Coroutine
from typing import Any, TypeVar

import httpx
import pytest
import trustme

from reconciler.clients.transport import Transport
from tests.clients.rawserver import RawServer, Seen, answer
from tests.clients.test_transport import run

T = TypeVar("T")

# A mutant that drops a timeout makes the call under test wait for ever; bounded, the
# test fails instead of hanging until the mutation runner's own timeout (an hour).
BOUND = 20.0


def within(step: Coroutine[Any, Any, T]) -> Coroutine[Any, Any, T]:
    return asyncio.wait_for(step, BOUND)


def fresh() -> Transport:
    return Transport(ssl.create_default_context(), httpx.Limits(max_connections=2))


def test_a_request_on_a_closed_transport_is_refused() -> None:
    async def main() -> None:
        transport = fresh()
        await transport.aclose()
        request = httpx.Request("GET", "http://127.0.0.1:9/api/a")
        with pytest.raises(RuntimeError) as refused:
            await transport.handle_async_request(request)
        assert str(refused.value) == "the transport is closed"

    asyncio.run(within(main()))


def test_a_scheme_other_than_http_or_https_is_unsupported() -> None:
    async def main() -> None:
        async with httpx.AsyncClient(transport=fresh()) as client:
            with pytest.raises(httpx.UnsupportedProtocol) as refused:
                await client.get("ftp://127.0.0.1:9/api/a")
        assert str(refused.value) == "unsupported URL scheme 'ftp'"

    asyncio.run(within(main()))


async def echo(seen: Seen) -> bytes:
    framing = seen.headers.get(b"transfer-encoding", b"-").decode()
    return answer(200, b'{"got": "%s", "framing": "%s"}' % (seen.body, framing.encode()))


def test_a_body_given_as_bytes_with_transfer_encoding_chunked_is_sent_in_chunks() -> None:
    async def check(server: RawServer, client: httpx.AsyncClient) -> None:
        for _ in range(2):  # and the connection is kept for the next
            response = await client.post(
                "/api/Company", content=b"name=Acme", headers={"Transfer-Encoding": "chunked"}
            )
            assert response.json() == {"got": "name=Acme", "framing": "chunked"}

    assert run(check, echo).connections == 1


@pytest.mark.parametrize("stated", ["5", "0", "12"])
def test_a_body_given_as_bytes_not_of_its_stated_length_is_refused(stated: str) -> None:
    async def check(server: RawServer, client: httpx.AsyncClient) -> None:
        with pytest.raises(httpx.LocalProtocolError) as refused:
            await client.post(
                "/api/Company", content=b"name=Acme", headers={"Content-Length": stated}
            )
        assert str(refused.value) == "the body's length is not its Content-Length"
        # Nothing of it was written; the next request is answered.
        response = await client.post("/api/Company", content=b"name=Acme")
        assert response.json() == {"got": "name=Acme", "framing": "-"}

    server = run(check, echo)
    assert [s.body for s in server.seen] == [b"name=Acme"]


class Silent:
    """A TCP server on 127.0.0.1 that accepts and then neither reads nor writes."""

    def __init__(self) -> None:
        self.listener = socket.socket()
        self.listener.bind(("127.0.0.1", 0))
        self.listener.listen(8)
        self.accepted: list[socket.socket] = []

    @property
    def port(self) -> int:
        port: int = self.listener.getsockname()[1]
        return port

    def accept(self) -> None:
        self.listener.setblocking(False)
        try:
            while True:
                conn, _ = self.listener.accept()
                conn.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
                self.accepted.append(conn)
        except BlockingIOError:
            pass

    def close(self) -> None:
        for sock in [*self.accepted, self.listener]:
            sock.close()


def test_a_tls_server_that_never_answers_the_handshake_is_a_connect_timeout() -> None:
    silent = Silent()

    async def main() -> None:
        timeout = httpx.Timeout(30.0, connect=0.2)
        async with httpx.AsyncClient(transport=fresh(), timeout=timeout) as client:
            with pytest.raises(httpx.ConnectTimeout) as caught:
                await client.get(f"https://127.0.0.1:{silent.port}/api/a")
        assert str(caught.value) == "no connection within the connect timeout"

    try:
        asyncio.run(within(main()))
    finally:
        silent.close()


def test_a_server_that_never_reads_a_large_body_is_a_write_timeout() -> None:
    silent = Silent()

    async def main() -> None:
        timeout = httpx.Timeout(30.0, write=0.2)
        async with httpx.AsyncClient(transport=fresh(), timeout=timeout) as client:
            with pytest.raises(httpx.WriteTimeout) as caught:
                await client.post(f"http://127.0.0.1:{silent.port}/api/a", content=b"x" * 2**25)
        assert str(caught.value) == "the socket took no data within the write timeout"

    try:
        asyncio.run(within(main()))
    finally:
        silent.close()


def test_an_answer_framed_by_the_close_that_ends_in_a_reset_is_a_read_error() -> None:
    """No Content-Length, no chunks: the body is what comes until the close; a reset
    instead of a close is a read error naming the reset, not a truncated body."""

    async def main() -> str:
        done = asyncio.Event()

        async def serve(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            await reader.readuntil(b"\r\n\r\n")
            writer.write(answer(200, b'{"partial": ', length=False))
            await writer.drain()
            await done.wait()
            sock = writer.get_extra_info("socket")
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            writer.transport.abort()

        server = await asyncio.start_server(serve, "127.0.0.1", 0)
        port = server.sockets[0].getsockname()[1]
        try:
            async with httpx.AsyncClient(transport=fresh()) as client:
                task = asyncio.create_task(client.get(f"http://127.0.0.1:{port}/api/a"))
                for _ in range(50):
                    await asyncio.sleep(0)
                done.set()
                with pytest.raises(httpx.ReadError) as caught:
                    await task
        finally:
            server.close()
            await server.wait_closed()
        return str(caught.value)

    assert asyncio.run(within(main())) == "[Errno 104] Connection reset by peer"


def test_an_answer_framed_by_the_close_is_read_to_the_close() -> None:
    async def handle(seen: Seen) -> bytes:
        return answer(200, b'{"whole": true}', length=False) + b"<then close>"

    async def check(server: RawServer, client: httpx.AsyncClient) -> None:
        assert (await client.get("/api/a")).json() == {"whole": True}
        assert (await client.get("/api/b")).json() == {"whole": True}

    assert run(check, handle).connections == 2  # the close ended the first


@pytest.fixture(scope="module")
def authority() -> trustme.CA:
    return trustme.CA()


def test_sni_hostname_names_the_host_checked_when_the_server_is_reached_by_address(
    authority: trustme.CA,
) -> None:
    served = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    authority.issue_cert("reconciler.test").configure_cert(served)
    names: list[str | None] = []
    served.sni_callback = lambda sock, name, context: names.append(name)
    trusted = ssl.create_default_context()
    authority.configure_trust(trusted)

    async def main() -> None:
        async with RawServer(tls=served) as server:
            transport = Transport(trusted, httpx.Limits(max_connections=1))
            async with httpx.AsyncClient(transport=transport) as client:
                url = f"https://127.0.0.1:{server.port}/api/a"
                extensions = {"sni_hostname": "reconciler.test"}
                response = await client.get(url, extensions=extensions)
                assert response.json() == {"echo": 0}
                # Without it, the address is what the certificate must name: refused.
                transport_without = Transport(trusted, httpx.Limits(max_connections=1))
                async with httpx.AsyncClient(transport=transport_without) as plain:
                    with pytest.raises(httpx.ConnectError) as refused:
                        await plain.get(url)
                assert isinstance(refused.value.__cause__, ssl.SSLCertVerificationError)

    asyncio.run(within(main()))
    assert names == ["reconciler.test", None]


def test_a_fresh_connection_the_server_writes_on_before_asked_is_replaced(
    authority: trustme.CA,
) -> None:
    """A server that answers before it is asked (a 408 as it accepts: it is shutting
    down): over TLS the bytes arrive with the end of the handshake, so the connection is
    unusable before a byte was written; the request goes on a fresh one, unharmed, and
    that one is kept."""
    served = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    authority.issue_cert("localhost").configure_cert(served)
    served.maximum_version = ssl.TLSVersion.TLSv1_2  # the server's Finished comes last
    trusted = ssl.create_default_context()
    authority.configure_trust(trusted)
    accepted: list[int] = []

    async def serve(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        accepted.append(len(accepted))
        if len(accepted) == 1:
            writer.write(b"HTTP/1.1 408 Request Timeout\r\nContent-Length: 0\r\n\r\n")
            await writer.drain()
            await reader.read()  # until the client closes
        else:
            with contextlib.suppress(asyncio.IncompleteReadError):  # the client closes
                while await reader.readuntil(b"\r\n\r\n"):
                    writer.write(b'HTTP/1.1 200 OK\r\nContent-Length: 11\r\n\r\n{"fresh":1}')
                    await writer.drain()
        writer.close()

    async def main() -> httpx.Response:
        server = await asyncio.start_server(serve, "127.0.0.1", 0, ssl=served)
        port = server.sockets[0].getsockname()[1]
        try:
            transport = Transport(trusted, httpx.Limits(max_connections=2))
            async with RawServer() as other, httpx.AsyncClient(transport=transport) as client:
                url = f"https://localhost:{port}/api/a"
                assert (await client.get(url)).json() == {"fresh": 1}
                # The replaced connection no longer counts against max_connections: a
                # request elsewhere leaves the fresh one idle, and it is used again.
                assert (await client.get(f"{other.url}/api/b")).status_code == 200
                return await client.get(url)
        finally:
            server.close()
            await server.wait_closed()

    assert asyncio.run(within(main())).json() == {"fresh": 1}
    assert accepted == [0, 1]
