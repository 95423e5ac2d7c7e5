"""What both clients share: the httpx client and the `Sender` they own, the read-only
rule, the first `401`/`403` that ends a client, closing them, and the call counters the
benchmarks read."""

from __future__ import annotations

import functools
import ssl
from collections import Counter
from pathlib import Path
from typing import Any, Self

import httpx

from reconciler import __version__
from reconciler.clients.auth import ApiKey, HelpdeskAuth
from reconciler.clients.ratelimit import RateLimiter
from reconciler.clients.retry import RetryPolicy
from reconciler.clients.sender import Sender
from reconciler.clients.urls import api_base_url
from reconciler.errors import ApiError, AuthenticationError, ReadOnlyViolation, UsageError

# Generous reads: over the limit the service may answer "artificially slowly" rather than
# with a 429, and a slow answer is better than a timeout that turns a create into an
# unknown outcome.
DEFAULT_TIMEOUT = httpx.Timeout(30.0, read=120.0)


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
    try:
        return httpx.AsyncClient(
            base_url=base_url,
            transport=transport,
            verify=tls_context(ca_file) if transport is None else True,
            timeout=timeout,
            limits=httpx.Limits(
                max_connections=max_connections, max_keepalive_connections=max_connections
            ),
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
    """A client of `service`; `example` is a base address shown when the first call is
    answered `404` (the base URL is most likely wrong)."""

    service = "service"
    example = ""

    def __init__(
        self,
        base_url: str,
        auth: HelpdeskAuth | ApiKey,
        *,
        read_only: bool,
        retry: RetryPolicy,
        transport: httpx.AsyncBaseTransport | None,
        timeout: float | httpx.Timeout,
        max_concurrency: int,
        ca_file: str | None,
        limiter: RateLimiter | None = None,
    ) -> None:
        self.read_only = read_only
        self._auth = auth
        self._http = new_http_client(
            api_base_url(base_url, self.service),
            transport,
            timeout,
            max_connections=max_concurrency,
            ca_file=ca_file,
        )
        self._sender = Sender(
            self._http,
            auth_headers=auth.headers,
            retry=retry,
            limiter=limiter,
            max_concurrency=max_concurrency,
            service=self.service,
            # The bound of a whole answer: an `httpx.Timeout`'s read timeout (answers.py).
            deadline=timeout.read if isinstance(timeout, httpx.Timeout) else timeout,
        )
        self._auth_failure: AuthenticationError | None = None

    def __repr__(self) -> str:
        mode = ", read_only" if self.read_only else ""
        return f"{type(self).__name__}({str(self._http.base_url)!r}, {self._auth!r}{mode})"

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        await self._http.aclose()

    def _refuse(self, method: str, label: str, write: bool) -> None:
        """A write through a read-only client, and any call after a `401`/`403`, raise
        before anything is sent: each further failed login brings the IP closer to the
        service's three-strike block."""
        if write and self.read_only:
            raise ReadOnlyViolation(
                f"{method} {label} is a write, attempted through a read-only client"
            )
        failure = self._auth_failure
        if failure is not None:
            raise AuthenticationError(failure.status, failure.method, failure.path, failure.message)

    async def _send(
        self, method: str, url: str | httpx.URL, label: str, *, write: bool, **send: Any
    ) -> httpx.Response:
        self._refuse(method, label, write)
        try:
            return await self._sender.send(method, url, label=label, write=write, **send)
        except AuthenticationError as err:
            self._auth_failure = err
            raise

    def _wrong_base(self, method: str, label: str) -> ApiError:
        """For a `404` on the first call: the base URL is most likely wrong."""
        name = self.service
        return ApiError(
            404,
            method,
            label,
            f"Not Found at {self.base_url}: no {name} API there. {name.upper()}_URL "
            f"(--{name}-url) must be the {name}'s base address, the part before /api (for "
            f"example {self.example}); reconciler appends /api itself",
        )

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
        """Seconds the calls so far waited for the client-side rate limit."""
        return self._sender.rate_limited
