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
from reconciler.clients.fastpath import Templates, send_direct
from reconciler.clients.sender import Sender
from reconciler.clients.transport import new_transport


def new_http_client(
    base_url: str | httpx.URL,
    transport: httpx.AsyncBaseTransport | None,
    timeout: float | httpx.Timeout,
    *,
    max_connections: int,
) -> httpx.AsyncClient:
    """The httpx client of an API client. Redirects are never followed (httpx's default,
    pinned by tests/clients/test_requests.py): the credentials would travel with them (the
    sender reports a 3xx instead).

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
    """`httpx.AsyncClient` with `_Cookies`, whose requests of the shapes the API clients
    send are built and sent the cheap way (fastpath.py): the same requests and answers,
    without redoing per request what is the same for all of them (issue 25)."""

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        self.cookies = self.cookies  # httpx's __init__ sets them past the setter
        self._templates = Templates(self)
        self._encoding = options.get("default_encoding", "utf-8")
        # The transport given is the one every request goes to, unless proxies or mounts
        # route some elsewhere (httpx's own transport is built then: none is given).
        routed = options.get("mounts") or options.get("proxy")
        self._direct = None if routed else options.get("transport")

    def build_request(
        self,
        method: str,
        url: httpx.URL | str,
        *,
        content: Any = None,
        params: Any = None,
        headers: Any = None,
        **rest: Any,
    ) -> httpx.Request:
        cheap = (
            # no data, files, json, cookies, extensions or timeout of the call's own
            all(value is None for name, value in rest.items() if name != "timeout")
            and rest.get("timeout", httpx.USE_CLIENT_DEFAULT) is httpx.USE_CLIENT_DEFAULT
            and (content is None or type(content) is bytes)
            and (headers is None or type(headers) is dict)
            and not self.params
            and not self.cookies
        )
        if cheap and isinstance(url, httpx.URL) and url.is_absolute_url:
            request = self._templates.build(method, url, content, params, headers)
            if request is not None:
                return request
        return super().build_request(
            method, url, content=content, params=params, headers=headers, **rest
        )

    async def send(
        self,
        request: httpx.Request,
        *,
        stream: bool = False,
        auth: Any = httpx.USE_CLIENT_DEFAULT,
        follow_redirects: Any = httpx.USE_CLIENT_DEFAULT,
    ) -> httpx.Response:
        direct = (
            self._direct is not None
            and not stream
            and auth is httpx.USE_CLIENT_DEFAULT
            and follow_redirects is httpx.USE_CLIENT_DEFAULT
            and not self.follow_redirects
            and self.auth is None
            and not any(self.event_hooks.values())
            and "timeout" in request.extensions
            and not request.url.userinfo
        )
        if direct:
            assert self._direct is not None
            return await send_direct(self, self._direct, request, self._encoding)
        return await super().send(
            request, stream=stream, auth=auth, follow_redirects=follow_redirects
        )

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
