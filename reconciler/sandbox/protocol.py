"""uvicorn's HTTP protocol with each answer written to the socket at once (issue 25).

uvicorn writes an answer's status line and header fields when the application starts the
answer, then its body: two `send` calls, two TCP segments (the socket has TCP_NODELAY),
and on the client's side often two wake-ups and two reads for one answer (`strace` of
the concurrent apply: 3,410 `sendto` for 1,705 answers; the client 4,319 `epoll_wait` and
1,996 `recvfrom`). With ten requests in flight against a sandbox on the same two cores as
the client, those extra wake-ups are part of every round. Here an
answer's head is held until its body is written, and both go out in one write: the
same bytes in the same order, one `send`. Nothing else of uvicorn's protocol changes
(parsing, keep-alive, flow control, timeouts, closing).
"""

from __future__ import annotations

import asyncio
from typing import Any


class JoinedWrites:
    """A transport that holds an answer's head until its body is written, then writes both
    at once.

    A write that is a response head (`HTTP/1.x NNN ...` up to its blank line; never a
    `100 Continue`, which the client waits for) is held; the next write goes out joined
    to it. What is held is also written when the answer is complete (a HEAD answer or a
    body of nothing: `flush`, from the protocol) and before the transport closes (an
    answer that failed half-way, as before). Everything else is the wrapped transport's.
    """

    def __init__(self, transport: asyncio.Transport) -> None:
        self._transport = transport
        self._held = b""

    def write(self, data: bytes | bytearray | memoryview) -> None:
        if self._held:
            data, self._held = self._held + bytes(data), b""
        elif _is_head(data):
            self._held = bytes(data)
            return
        self._transport.write(data)

    def flush(self) -> None:
        if self._held:
            data, self._held = self._held, b""
            self._transport.write(data)

    def close(self) -> None:
        self.flush()
        self._transport.close()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._transport, name)


def _is_head(data: bytes | bytearray | memoryview) -> bool:
    view = bytes(data[:13])
    return (
        view.startswith((b"HTTP/1.1 ", b"HTTP/1.0 "))
        and view[9:10] != b"1"  # 1xx: the client waits for it before its body
        and bytes(data[-4:]) == b"\r\n\r\n"
    )


def joined_protocol() -> type[asyncio.Protocol]:
    """The HTTP protocol class uvicorn picks by itself ("auto": httptools when installed,
    h11 otherwise), with its transport's writes joined (`JoinedWrites`)."""
    from uvicorn.protocols.http.auto import AutoHTTPProtocol

    base: type[Any] = AutoHTTPProtocol

    class JoinedWritesProtocol(base):  # type: ignore[misc]
        def connection_made(self, transport: asyncio.BaseTransport) -> None:
            super().connection_made(JoinedWrites(transport))  # type: ignore[arg-type]

        def on_response_complete(self) -> None:
            self.transport.flush()
            super().on_response_complete()

    return JoinedWritesProtocol
