"""What both clients share: the httpx client and the `Sender` they own, closing them, and
the call counters the benchmarks read."""

from __future__ import annotations

import functools
import ssl
from collections import Counter
from types import TracebackType
from typing import Any, Self

import httpx

from reconciler import __version__
from reconciler.clients.sender import Sender
from reconciler.clients.transport import new_transport


def new_http_client(
    base_url: str | httpx.URL,
    transport: httpx.AsyncBaseTransport | None,
    timeout: float | httpx.Timeout,
    max_connections: int = 10,
) -> httpx.AsyncClient:
    """The httpx client of an API client. Redirects are never followed: the credentials
    would travel with them (the sender reports a 3xx instead).

    The connection pool holds as many connections as the client sends requests at once
    (`max_connections`, its `Sender`'s concurrency), all kept alive: httpcore walks every
    pooled connection (and checks each idle one's socket) twice per request, so a pool
    larger than the concurrency costs CPU on every call and saves nothing (issue 25).

    The transport is reconciler's own HTTP/1.1 one (transport.py), or httpx's where a
    proxy from the environment may apply: a fraction of httpcore's CPU per request."""
    limits = httpx.Limits(
        max_connections=max_connections, max_keepalive_connections=max_connections
    )
    if transport is None:
        transport = new_transport(httpx.URL(base_url), _tls_context, limits)
    return _Client(
        base_url=base_url,
        transport=transport,
        # Only httpx's own transport (a proxy applies) needs the context here; the
        # reconciler's builds it at its first https connection.
        verify=_tls_context() if transport is None else True,
        timeout=timeout,
        limits=limits,
        follow_redirects=False,
        headers={"User-Agent": f"reconciler/{__version__}", "Accept": "application/json"},
    )


class _Cookies(httpx.Cookies):
    """httpx's cookies, skipping answers that set none: httpx hands every answer to its
    `CookieJar` through `urllib.request.Request` and `email.message.Message` copies of the
    request and answer, about 8 % of an apply's CPU (the APIs set no cookie). Cookies
    that are set are kept and sent back as before."""

    def extract_cookies(self, response: httpx.Response) -> None:
        headers = response.headers
        if "set-cookie" in headers or "set-cookie2" in headers:
            super().extract_cookies(response)


class _Client(httpx.AsyncClient):
    """`httpx.AsyncClient` with `_Cookies`."""

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        self.cookies = self.cookies  # httpx's __init__ sets them past the setter

    @property
    def cookies(self) -> httpx.Cookies:
        return self._cookies

    @cookies.setter
    def cookies(self, cookies: Any) -> None:  # httpx.Cookies, a dict, a list or a jar
        self._cookies = _Cookies(cookies)


@functools.cache
def _tls_context() -> ssl.SSLContext:
    """httpx's default TLS context (certifi's roots, or SSL_CERT_FILE/SSL_CERT_DIR), built
    once per process: loading the roots takes about 0.2 s of CPU, which a plan over many
    environments (two clients each) otherwise spent per client, blocking the event loop."""
    return httpx.create_ssl_context()


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
