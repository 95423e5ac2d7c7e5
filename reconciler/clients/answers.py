"""Receiving one answer whole, bounded in time and in size.

httpx's timeouts bound each read, not the answer: a server that sends a byte a second, its
head slowly, or `100 Continue` forever is never timed out by them. So each attempt runs
under one deadline (`--timeout`, the whole answer: connecting, the head and the body),
whose expiry is an `httpx.ReadTimeout` the retry policy treats as any other timeout.

The body is streamed and its decoded bytes counted: past `MAX_ANSWER_BYTES` reading stops
(a gzip bomb is decompressed no further than one chunk past the bound) and the answer is
refused, `AnswerTooLarge`, naming the endpoint and the limit. The largest answers the APIs
give, a page of 500 users or a listing of every company, are a few MiB.

Or no answer: telling "the service cannot be reached at all" apart from a passing fault,
so that a wrong URL, a stopped server or a bad certificate is reported within seconds,
naming the host and port, instead of after a series of backed-off retries. Such a failure
is a connection that was never opened: refused (nothing listens there), a host name that
does not resolve, or a TLS handshake that failed. The cause is read from the exception
chain httpx builds (httpx error <- httpcore error <- OSError)."""

from __future__ import annotations

import asyncio
import socket
import ssl

import httpx

MAX_ANSWER_BYTES = 64 * 1024 * 1024  # 64 MiB, decoded
_DECODED = frozenset({"content-encoding", "content-length", "transfer-encoding"})


class AnswerTooLarge(Exception):
    """An answer's decoded body passed `MAX_ANSWER_BYTES`; nothing of it is kept."""


async def receive(
    http: httpx.AsyncClient, request: httpx.Request, *, deadline: float | None
) -> httpx.Response:
    """The answer to `request`, its body read and decoded, within `deadline` seconds
    (raises `httpx.ReadTimeout`) and `MAX_ANSWER_BYTES` (raises `AnswerTooLarge`)."""
    try:
        async with asyncio.timeout(deadline):
            response = await http.send(request, stream=True)
            try:
                chunks: list[bytes] = []
                size = 0
                async for chunk in response.aiter_bytes():
                    size += len(chunk)
                    if size > MAX_ANSWER_BYTES:
                        raise AnswerTooLarge()
                    chunks.append(chunk)
            finally:
                await response.aclose()
    except TimeoutError:
        raise httpx.ReadTimeout(f"no whole answer within {deadline:g} s", request=request) from None
    headers = [(k, v) for k, v in response.headers.multi_items() if k.lower() not in _DECODED]
    return httpx.Response(
        response.status_code,
        headers=headers,
        content=b"".join(chunks),
        request=request,
        extensions=response.extensions,
    )


REFUSED = "connection refused"
NO_SUCH_HOST = "the host name does not resolve"
TLS = "the TLS handshake failed"

_HINTS = {
    REFUSED: "nothing accepts connections there: check the URL's host and port, and that "
    "the service is running",
    NO_SUCH_HOST: "check the host name in the URL",
    TLS: "check the URL's scheme (https:// for TLS, http:// without) and the server's certificate",
}
# One more attempt, soon, for a refusal or a name lookup: a server restarting or a
# resolver hiccup. A failed handshake fails the same way every time.
QUICK_RETRY = 0.5
RETRIED = frozenset({REFUSED, NO_SUCH_HOST})


def unreachable(exc: BaseException) -> str | None:
    """REFUSED, NO_SUCH_HOST or TLS when `exc` is such a failure, else None."""
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        if isinstance(current, ssl.SSLError):
            return TLS
        if isinstance(current, socket.gaierror):
            return NO_SUCH_HOST
        if isinstance(current, ConnectionRefusedError):
            return REFUSED
        current = current.__cause__ or current.__context__
    return None


def host_and_port(url: httpx.URL) -> str:
    """`acme.example.com:443`: the port is always shown, the scheme's default included."""
    port = url.port or (443 if url.scheme == "https" else 80)
    host = f"[{url.host}]" if ":" in url.host else url.host
    return f"{host}:{port}"


def unreachable_message(service: str, url: httpx.URL, kind: str, detail: str) -> str:
    return (
        f"cannot connect to the {service} at {host_and_port(url)}: {kind} ({detail}); "
        f"{_HINTS[kind]}"
    )
