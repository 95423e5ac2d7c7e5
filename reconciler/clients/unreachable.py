"""Telling "the service cannot be reached at all" apart from a passing fault, so that a
wrong URL, a stopped server or a bad certificate is reported within seconds, naming the
host and port, instead of after a series of backed-off retries.

Such a failure is a connection that was never opened: refused (nothing listens there),
a host name that does not resolve, or a TLS handshake that failed. The cause is read
from the exception chain httpx builds (httpx error <- httpcore error <- OSError)."""

from __future__ import annotations

import socket
import ssl

import httpx

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
