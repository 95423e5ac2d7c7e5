"""The clients' transport under httpx, in place of httpcore and anyio (issue 25,
docs/performance.md): HTTP/1.1 (http11.py) over an `asyncio.Protocol`.

- keep-alive connections per origin, at most `max_connections` requests in flight and
  connections open (`PoolTimeout` past the pool timeout), at most
  `max_keepalive_connections` kept idle, each for `keepalive_expiry` seconds;
- TLS with the process's one `ssl.SSLContext`; the URL's host (or the request's
  `sni_hostname`) is sent as SNI and checked against the certificate, as httpx does;
- httpx's timeouts (`connect`, `read` between two reads, `write` while the socket's
  buffer is full, `pool`) and exceptions: `ConnectError` (its cause the `OSError`),
  `ConnectTimeout`, `PoolTimeout` (the request never left the client: the sender sends
  it again, whatever it is), `ReadTimeout`, `WriteTimeout`, `ReadError`,
  `RemoteProtocolError`, `LocalProtocolError`, `UnsupportedProtocol`;
- a kept-alive connection the server closed is never written to: one whose end the event
  loop has seen, or whose socket is readable when it is taken (httpcore's check), is
  dropped and the request goes on another or a fresh one. Once a byte of the request was
  written nothing is sent again here: the server closing then is `RemoteProtocolError`
  (no answer) or `ReadError`, and the sender decides (a create is not sent twice);
- whole bodies: the answer is read to its end (content-length, chunked, or up to the
  close; none for HEAD, 204 and 304) and returned as an `httpx.ByteStream`, which httpx
  decodes (gzip...) as usual. Request bodies: bytes, or httpx's streams (chunked).

`new_transport` leaves the client to httpx's own transport instead where a proxy from
the environment may apply (HTTP_PROXY, HTTPS_PROXY, ALL_PROXY, read with `trust_env`), or
for HTTP/2: httpx then routes, proxies and bypasses (NO_PROXY) exactly as before.
"""

from __future__ import annotations

import asyncio
import select
import ssl
from collections.abc import Callable

import httpx

from reconciler.clients import http11
from reconciler.clients.proxies import env_proxy_applies

_PORTS = {b"http": 80, b"https": 443}
_NO_RESPONSE = "Server disconnected without sending a response."
Origin = tuple[bytes, bytes, int]
TLSContext = ssl.SSLContext | Callable[[], ssl.SSLContext]
Timeouts = dict[str, float | None]


def new_transport(
    base_url: httpx.URL, ssl_context: TLSContext, limits: httpx.Limits, *, http2: bool = False
) -> Transport | None:
    """The transport for a client of `base_url`: `Transport`, or None (httpx builds its
    default transport, and with it the proxies of the environment) where a proxy may
    apply, or for HTTP/2, which `Transport` does not speak."""
    if http2 or env_proxy_applies(base_url):
        return None
    return Transport(ssl_context, limits)


class Transport(httpx.AsyncBaseTransport):
    """`ssl_context`: the context for https, or a function that returns it, called at the
    first https connection (building one loads the certificate roots: about 0.2 s)."""

    def __init__(self, ssl_context: TLSContext, limits: httpx.Limits) -> None:
        self._ssl_source = ssl_context
        self._ssl: ssl.SSLContext | None = None
        self._max = limits.max_connections or 100
        self._keep = min(self._max, limits.max_keepalive_connections or self._max)
        self._expiry = 5.0 if limits.keepalive_expiry is None else limits.keepalive_expiry
        self._slots = asyncio.Semaphore(self._max)
        self._idle: dict[Origin, list[_Connection]] = {}
        self._open: set[_Connection] = set()
        self._closed = False

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        if self._closed:
            raise RuntimeError("the transport is closed")
        url = request.url
        scheme = url.raw_scheme
        if scheme not in _PORTS:
            raise httpx.UnsupportedProtocol(f"unsupported URL scheme {url.scheme!r}")
        origin = (scheme, url.raw_host, url.port or _PORTS[scheme])
        timeouts: Timeouts = request.extensions.get("timeout", {})
        await self._take_slot(timeouts.get("pool"))
        try:
            conn = self._reuse(origin) or await self._connect(origin, request, timeouts)
            if conn.closed:  # seen closed before a byte was written: take a fresh one
                self._drop(conn)
                conn = await self._connect(origin, request, timeouts)
            try:
                response = await conn.exchange(request, timeouts)
            except BaseException:
                self._drop(conn)
                raise
            self._release(origin, conn)
            return response
        finally:
            self._slots.release()

    async def _take_slot(self, timeout: float | None) -> None:
        if not self._slots.locked():
            await self._slots.acquire()
            return
        try:
            async with asyncio.timeout(timeout):
                await self._slots.acquire()
        except TimeoutError:
            raise httpx.PoolTimeout("no connection free within the pool timeout") from None

    def _reuse(self, origin: Origin) -> _Connection | None:
        """The most recently used idle connection to `origin` still open and fresh."""
        idle = self._idle.get(origin)
        if not idle:
            return None
        now = asyncio.get_running_loop().time()
        while idle:
            conn = idle.pop()
            if now - conn.idle_since < self._expiry and conn.usable():
                return conn
            self._drop(conn)
        return None

    def _release(self, origin: Origin, conn: _Connection) -> None:
        if not conn.reusable() or self._closed:
            self._drop(conn)
            return
        if sum(map(len, self._idle.values())) >= self._keep:
            self._drop(conn)
            return
        conn.idle_since = asyncio.get_running_loop().time()
        self._idle.setdefault(origin, []).append(conn)

    def _drop(self, conn: _Connection) -> None:
        self._open.discard(conn)
        conn.close()

    async def _connect(
        self, origin: Origin, request: httpx.Request, timeouts: Timeouts
    ) -> _Connection:
        if len(self._open) >= self._max:
            self._evict()
        scheme, host, port = origin
        context = self._tls() if scheme == b"https" else None
        sni = request.extensions.get("sni_hostname") or request.url.host
        loop = asyncio.get_running_loop()
        try:
            async with asyncio.timeout(timeouts.get("connect")):
                _, conn = await loop.create_connection(
                    lambda: _Connection(loop),
                    host.decode("ascii"),
                    port,
                    ssl=context,
                    server_hostname=sni if context is not None else None,
                )
        except TimeoutError:
            raise httpx.ConnectTimeout("no connection within the connect timeout") from None
        except OSError as exc:
            raise httpx.ConnectError(str(exc) or type(exc).__name__) from exc
        self._open.add(conn)
        return conn

    def _tls(self) -> ssl.SSLContext:
        if self._ssl is None:
            source = self._ssl_source
            self._ssl = source if isinstance(source, ssl.SSLContext) else source()
            self._ssl.set_alpn_protocols(["http/1.1"])  # as httpcore does, without HTTP/2
        return self._ssl

    def _evict(self) -> None:
        """Close the idle connection unused longest, to stay within `max_connections`."""
        oldest: list[_Connection] | None = None
        for conns in self._idle.values():
            if conns and (oldest is None or conns[0].idle_since < oldest[0].idle_since):
                oldest = conns
        if oldest is not None:
            self._drop(oldest.pop(0))

    async def aclose(self) -> None:
        """Close every connection (a request still in flight fails with `ReadError`)."""
        self._closed = True
        conns, self._open = self._open, set()
        for conn in conns:
            conn.close()
        if conns:
            await asyncio.sleep(0)  # the transports' connection_lost callbacks run now


class _Connection(asyncio.Protocol):
    """One HTTP/1.1 connection: its asyncio transport and the bytes received."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self._loop = loop
        self._transport: asyncio.Transport | None = None
        self._fileno = -1
        self._buffer = bytearray()
        self._waiter: asyncio.Future[bool] | None = None  # True: data, end; False: timeout
        self._drained: asyncio.Future[bool] | None = None
        self._paused = False
        self._busy = False
        self._ended = False  # no more bytes will come
        self._lost: BaseException | None = None  # the error the connection ended with
        self._keep = False
        self.closed = False
        self.idle_since = 0.0

    # -- asyncio.Protocol --------------------------------------------------------------

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self._transport = transport
        sock = transport.get_extra_info("socket")
        self._fileno = sock.fileno() if sock is not None else -1

    def data_received(self, data: bytes) -> None:
        if not self._busy:  # nothing is asked on an idle connection: unusable now
            self.close()
            return
        self._buffer += data
        self._wake(self._waiter)

    def eof_received(self) -> bool:
        self._ended = self.closed = True
        self._wake(self._waiter)
        return False  # the transport closes itself

    def connection_lost(self, exc: Exception | None) -> None:
        self._ended = self.closed = True
        self._lost = exc
        self._wake(self._waiter)
        self._wake(self._drained)

    def pause_writing(self) -> None:
        self._paused = True

    def resume_writing(self) -> None:
        self._paused = False
        self._wake(self._drained)

    @staticmethod
    def _wake(waiter: asyncio.Future[bool] | None) -> None:
        if waiter is not None and not waiter.done():
            waiter.set_result(True)

    # -- the connection's state ----------------------------------------------------------

    def usable(self) -> bool:
        """Open, and its socket not readable (an idle connection readable has been closed
        by the server, or sent something unasked: either way it is not used again)."""
        if self.closed or self._fileno < 0:
            return False
        return not select.select([self._fileno], [], [], 0)[0]

    def reusable(self) -> bool:
        """The exchange ended cleanly, both sides keeping the connection alive."""
        return self._keep and not self.closed and not self._buffer

    def close(self) -> None:
        self.closed = True
        if self._transport is not None:
            self._transport.abort()

    # -- one request ----------------------------------------------------------------------

    async def exchange(self, request: httpx.Request, timeouts: Timeouts) -> httpx.Response:
        """Send `request` and read its whole answer; on any failure the connection is
        closed."""
        # `_keep` is read (`reusable`) only once this returns: a failure closes the
        # connection, and a completed exchange sets it below.
        self._busy = True
        try:
            method = request.method.encode("ascii")
            closing = await self._send(request, method, timeouts.get("write"))
            head, body = await self._receive(method, timeouts.get("read"))
        except BaseException:
            self.close()
            raise
        finally:
            self._busy = False
        self._keep = head.keep_alive and not closing
        return httpx.Response(
            head.status,
            headers=head.headers,
            stream=httpx.ByteStream(body),
            extensions={"http_version": b"HTTP/1.%d" % head.minor, "reason_phrase": head.reason},
            request=request,
        )

    async def _send(self, request: httpx.Request, method: bytes, timeout: float | None) -> bool:
        """Write the request; True when it asks to close the connection after the answer."""
        headers = request.headers.raw
        head = http11.request_head(method, request.url.raw_path, headers)
        length, closing = http11.framing(headers)
        try:
            body = request.content
        except httpx.RequestNotRead:
            await self._write(head, timeout)
            await self._send_stream(request, length, timeout)
            return closing
        if length == http11.CHUNKED:
            body = http11.chunk(body) + http11.LAST_CHUNK
        elif len(body) != (length or 0):
            raise httpx.LocalProtocolError("the body's length is not its Content-Length")
        await self._write(head + body if body else head, timeout)
        return closing

    async def _send_stream(
        self, request: httpx.Request, length: int | None, timeout: float | None
    ) -> None:
        sent = 0
        async for part in request.stream:  # type: ignore[union-attr]
            sent += len(part)
            if length != http11.CHUNKED and sent > (length or 0):
                raise httpx.LocalProtocolError("the body is longer than its Content-Length")
            await self._write(http11.chunk(part) if length == http11.CHUNKED else part, timeout)
        if length == http11.CHUNKED:
            await self._write(http11.LAST_CHUNK, timeout)
        elif sent != (length or 0):
            raise httpx.LocalProtocolError("the body is shorter than its Content-Length")

    async def _write(self, data: bytes, timeout: float | None) -> None:
        """Write, then wait while the socket's buffer is over its high-water mark. A
        connection lost while writing is not an error yet: the server may have answered
        before it closed (a 413, say), and reading returns that or fails."""
        if not data or self.closed or self._transport is None:
            return
        self._transport.write(data)
        if self._paused:
            self._drained = self._loop.create_future()
            if not await _wait(self._loop, self._drained, timeout):
                raise httpx.WriteTimeout("the socket took no data within the write timeout")

    async def _receive(self, method: bytes, timeout: float | None) -> tuple[http11.Head, bytes]:
        buffer = self._buffer
        while (head := http11.parse_head(buffer, method)) is None:
            await self._more(timeout, _NO_RESPONSE if not buffer else "closed in the head")
        if head.length >= 0:
            while len(buffer) < head.length:
                await self._more(timeout, _short(len(buffer), head.length))
            body = bytes(buffer[: head.length])
            del buffer[: head.length]
        elif head.length == http11.CHUNKED:
            chunks = http11.Chunks()
            chunks.feed(buffer)
            while not chunks.done:
                await self._more(timeout, "peer closed connection in a chunked body")
                chunks.feed(buffer)
            body = b"".join(chunks.parts)
        else:  # until the connection ends
            while not self._ended:
                await self._more(timeout, "")
            if self._lost is not None:
                raise httpx.ReadError(str(self._lost) or type(self._lost).__name__)
            body, buffer[:] = bytes(buffer), b""
        return head, body

    async def _more(self, timeout: float | None, ended: str) -> None:
        """Wait for more bytes; at the connection's end raise `ReadError` (reset) or
        `RemoteProtocolError(ended)`."""
        if self._ended:
            if self._lost is not None:
                raise httpx.ReadError(str(self._lost) or type(self._lost).__name__)
            raise httpx.RemoteProtocolError(ended)
        self._waiter = self._loop.create_future()
        if not await _wait(self._loop, self._waiter, timeout):
            raise httpx.ReadTimeout("no data within the read timeout")


def _short(received: int, expected: int) -> str:
    return (
        "peer closed connection without sending complete message body: "
        f"received {received} bytes, expected {expected}"
    )


async def _wait(
    loop: asyncio.AbstractEventLoop, waiter: asyncio.Future[bool], timeout: float | None
) -> bool:
    """True when `waiter` was woken, False when `timeout` seconds passed first."""
    if timeout is None:
        return await waiter
    handle = loop.call_later(timeout, _expire, waiter)
    try:
        return await waiter
    finally:
        handle.cancel()


def _expire(waiter: asyncio.Future[bool]) -> None:
    if not waiter.done():
        waiter.set_result(False)
