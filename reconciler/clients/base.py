"""What both clients share: the httpx client and the `Sender` they own, closing them, and
the call counters the benchmarks read."""

from __future__ import annotations

import functools
import ssl
from collections import Counter
from pathlib import Path
from types import TracebackType
from typing import Self

import httpx

from reconciler import __version__
from reconciler.clients.sender import Sender
from reconciler.errors import UsageError


def new_http_client(
    base_url: str | httpx.URL,
    transport: httpx.AsyncBaseTransport | None,
    timeout: float | httpx.Timeout,
    *,
    max_connections: int,
    ca_file: str | None = None,
) -> httpx.AsyncClient:
    """The httpx client of an API client, on httpx's default transport unless a test
    gives one. Proxies come from the environment (HTTP_PROXY, HTTPS_PROXY, ALL_PROXY,
    NO_PROXY: httpx's `trust_env`). Redirects are never followed (httpx's default, pinned
    by tests/clients/test_requests.py): the credentials would travel with them (the sender
    reports a 3xx instead). The pool holds as many connections as the client sends
    requests at once (`max_connections`, its `Sender`'s concurrency), all kept alive.
    A server's certificate is checked against `ca_file` when given (`tls_context`)."""
    limits = httpx.Limits(
        max_connections=max_connections, max_keepalive_connections=max_connections
    )
    try:
        return httpx.AsyncClient(
            base_url=base_url,
            transport=transport,
            verify=tls_context(ca_file) if transport is None else True,
            timeout=timeout,
            limits=limits,
            headers={"User-Agent": f"reconciler/{__version__}", "Accept": "application/json"},
        )
    except (ValueError, httpx.InvalidURL) as exc:  # a proxy URL from the environment
        raise UsageError(f"the proxy settings in the environment are not usable: {exc}") from None
    except ImportError:  # httpx needs the socksio package for a socks5:// proxy
        raise UsageError(
            "the proxy settings in the environment name a SOCKS proxy, which needs the "
            "socksio package (pip install 'httpx[socks]'); or use an http:// proxy"
        ) from None


@functools.cache
def tls_context(ca_file: str | None = None) -> ssl.SSLContext:
    """The certificates a server's is checked against: those of `ca_file` (a PEM file, or
    a directory of hashed certificates) when given, else httpx's default (certifi's
    roots, or SSL_CERT_FILE/SSL_CERT_DIR). Built once per process and file: loading the
    roots takes about 0.2 s of CPU, which a plan over many environments (two clients
    each) otherwise spent per client, blocking the event loop. Raises UsageError for a
    file that cannot be read as certificates."""
    try:
        if ca_file is None:
            return httpx.create_ssl_context()
        if Path(ca_file).is_dir():
            return ssl.create_default_context(capath=ca_file)
        return ssl.create_default_context(cafile=ca_file)
    except (OSError, ssl.SSLError, ValueError) as exc:
        where = ca_file if ca_file is not None else "SSL_CERT_FILE/SSL_CERT_DIR"
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        raise UsageError(
            f"the certificates in {where} cannot be read: {reason} (a PEM file is expected)"
        ) from None


class ClientBase:
    _http: httpx.AsyncClient
    _sender: Sender

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        await self._http.aclose()

    @property
    def base_url(self) -> str:
        """The API base, `.../api/`."""
        return str(self._http.base_url)

    def halt(self) -> None:
        """Send nothing more (an interrupted apply): a request not yet sent raises
        `Halted`; one already sent finishes."""
        self._sender.halt()

    @property
    def calls(self) -> int:
        """Requests sent so far, retries included."""
        return self._sender.calls

    @property
    def calls_by_path(self) -> Counter[str]:
        return self._sender.calls_by_path

    @property
    def rate_limited_seconds(self) -> float:
        """Seconds the calls so far waited for the client-side rate limiter."""
        return self._sender.rate_limited
