"""A tiny HTTP/1.1 server on 127.0.0.1 (a free port) for the transport's edge cases: it
reads each request with h11 and writes whatever bytes the test's handler returns, so a
test can answer malformed, truncated, chunked or never."""

from __future__ import annotations

import asyncio
import socket
import ssl
import struct
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from types import TracebackType

import h11


@dataclass
class Seen:
    connection: int  # the number of the connection it came on, from 0
    method: bytes
    target: bytes
    headers: dict[bytes, bytes]
    body: bytes


CLOSE = None  # a handler's answer: close the connection without answering
RESET = b"<reset>"  # a handler's answer: reset the connection (RST) without answering
THEN_CLOSE = b"<then close>"  # at the end of a handler's answer: close after writing it
Handler = Callable[[Seen], Awaitable[bytes | None]]


def answer(status: int = 200, body: bytes = b"{}", *headers: str, length: bool = True) -> bytes:
    """Raw answer bytes: the status line, `headers`, Content-Length unless `length` is
    False (then the body is framed by `headers`, or by the close), and `body`."""
    lines = [f"HTTP/1.1 {status} Whatever", *headers]
    if length:
        lines.append(f"Content-Length: {len(body)}")
    return ("\r\n".join(lines) + "\r\n\r\n").encode() + body


def chunked(*chunks: bytes) -> bytes:
    return b"".join(b"%x\r\n%s\r\n" % (len(c), c) for c in chunks) + b"0\r\n\r\n"


async def ok(seen: Seen) -> bytes:
    return answer(200, b'{"echo": %d}' % len(seen.body))


@dataclass
class RawServer:
    handle: Handler = ok
    tls: ssl.SSLContext | None = None  # a server-side context: https
    port: int = 0
    connections: int = 0
    open: int = 0  # connections open now
    seen: list[Seen] = field(default_factory=list)
    closed: list[int] = field(default_factory=list)  # connections the client closed
    _server: asyncio.Server | None = None
    _tasks: set[asyncio.Task[None]] = field(default_factory=set)
    _writers: set[asyncio.StreamWriter] = field(default_factory=set)

    @property
    def url(self) -> str:
        return f"{'https' if self.tls else 'http'}://127.0.0.1:{self.port}"

    async def __aenter__(self) -> RawServer:
        self._server = await asyncio.start_server(self._serve, "127.0.0.1", 0, ssl=self.tls)
        self.port = self._server.sockets[0].getsockname()[1]
        return self

    async def __aexit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        assert self._server is not None
        self._server.close()
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        await self._server.wait_closed()

    async def end_connections(self) -> None:
        """Close every connection from this side (an idle one: its keep-alive timeout)."""
        writers, self._writers = self._writers, set()
        for writer in writers:
            writer.close()
        for writer in writers:
            await writer.wait_closed()

    async def unasked(self, data: bytes) -> None:
        """Write `data` on every open connection, though nothing asked for it."""
        for writer in list(self._writers):
            writer.write(data)
            await writer.drain()

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        assert task is not None
        self._tasks.add(task)
        number, self.connections = self.connections, self.connections + 1
        self.open += 1
        self._writers.add(writer)
        try:
            while True:
                seen = await _read_request(number, reader)
                if seen is None:
                    self.closed.append(number)
                    return
                self.seen.append(seen)
                raw = await self.handle(seen)
                if raw is CLOSE:
                    return
                if raw == RESET:
                    sock = writer.get_extra_info("socket")
                    sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
                    writer.transport.abort()
                    return
                writer.write(raw.removesuffix(THEN_CLOSE))
                await writer.drain()
                if raw.endswith(THEN_CLOSE):
                    return
        except (ConnectionError, asyncio.IncompleteReadError):
            self.closed.append(number)
        except asyncio.CancelledError:  # the test is over; asyncio's callback wants no error
            return
        finally:
            self.open -= 1
            self._writers.discard(writer)
            writer.close()
            self._tasks.discard(task)


async def _read_request(number: int, reader: asyncio.StreamReader) -> Seen | None:
    """The next request on the connection, None at its end."""
    conn = h11.Connection(h11.SERVER)
    request: h11.Request | None = None
    body = b""
    while True:
        event = conn.next_event()
        if event is h11.NEED_DATA:
            conn.receive_data(await reader.read(65536))
        elif isinstance(event, h11.Request):
            request = event
        elif isinstance(event, h11.Data):
            body += event.data
        elif isinstance(event, h11.EndOfMessage):
            assert request is not None
            headers = {name: value for name, value in request.headers}
            return Seen(number, request.method, request.target, headers, body)
        elif isinstance(event, h11.ConnectionClosed):
            return None
