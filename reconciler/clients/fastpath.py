"""The clients' requests built and sent without redoing, per request, what httpx's
`AsyncClient` does in general (issue 25; docs/performance.md, "round four").

`AsyncClient.build_request` merges the base URL, the default headers, cookies and query
parameters, and `httpx.Request` then normalises every header, encodes the body and parses
the URL again: about 60 µs of CPU for a form POST and 160 µs for a GET with parameters
here, the largest part of a call's client CPU. Most of it is the same for every request
of a client: its default headers, its auth header, in httpx's own order. So:

- `Templates.build`: the headers of a request of one shape (method, host, body or none,
  the call's own headers) are taken from a probe built by httpx's own `build_request`,
  once per shape; a request copies them and sets its Content-Length. Its URL gets its
  query string (`urls.query_string`, what httpx's `QueryParams` give) without parsing the
  rest of the URL again (`with_query`). The result is an `httpx.Request` equal, header
  by header and byte by byte, to httpx's (tests/clients/test_cheap_requests.py).
- `send_direct`: what `AsyncClient.send` does for a request sent as these clients send
  them (no auth flow, no event hooks, redirects not followed, the answer read whole),
  straight to the client's transport: the answer's request, cookies, encoding, elapsed
  time, `next_request` of a redirect and httpx's log line are as httpx sets them.

Whatever is not one of those shapes (a JSON or streamed body, cookies in the jar, the
client's own query parameters or auth, a caller's Host or Content-Length) goes through
httpx's own methods, unchanged.
"""

from __future__ import annotations

import datetime
import logging
import re
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import httpx

from reconciler.clients.urls import query_string

_PROBE = b"reconciler"  # the probe's body: any non-empty bytes
_TEMPLATES_KEPT = 256  # shapes remembered per client
_QUERY_FAST_MAX = 8192  # longer queries go through httpx, which checks their length
_OWN_FIELDS = frozenset({"host", "content-length", "transfer-encoding"})
_httpx_log = logging.getLogger("httpx")


@dataclass(frozen=True, slots=True)  # pragma: no mutate
class _Template:
    headers: httpx.Headers  # in httpx's order, Content-Length (if any) the probe's
    length_field: str | None  # the Content-Length field to set per request


Shape = tuple[str, bytes, int, tuple[tuple[str, str], ...]]


class Templates:
    """The header templates of one client, by request shape."""

    def __init__(self, client: httpx.AsyncClient) -> None:
        self._client = client
        self._defaults: list[tuple[bytes, bytes]] = []
        self._templates: dict[Shape, _Template | None] = {}

    def build(
        self,
        method: str,
        url: httpx.URL,
        content: bytes | None,
        params: Mapping[str, Any] | None,
        headers: dict[str, str] | None,
    ) -> httpx.Request | None:
        """The request `client.build_request(method, url, content=content, params=params,
        headers=headers)` builds, or None where that shape is not one done here."""
        client = self._client
        defaults = client.headers.raw
        if defaults != self._defaults:  # the client's headers changed: probe again
            self._defaults, self._templates = defaults, {}
        items = tuple(headers.items()) if headers else ()
        body = -1 if content is None else min(len(content), 1)
        shape = (method, url.netloc, body, items)
        if shape in self._templates:
            template = self._templates[shape]
        else:
            template = self._probe(method, url, body, headers)
            if len(self._templates) >= _TEMPLATES_KEPT:
                self._templates.clear()
            self._templates[shape] = template
        if template is None:
            return None
        target = url if not params else with_query(url, params)
        request = httpx.Request(
            method,
            target,
            headers=template.headers,
            stream=httpx.ByteStream(content or b""),
            extensions={"timeout": client.timeout.as_dict()},
        )
        if template.length_field is not None:
            request.headers[template.length_field] = str(len(content or b""))
        request.read()
        return request

    def _probe(
        self, method: str, url: httpx.URL, body: int, headers: dict[str, str] | None
    ) -> _Template | None:
        if headers and any(name.lower() in _OWN_FIELDS for name in headers):
            return None
        content = None if body < 0 else _PROBE if body else b""
        # httpx's own method (a subclass of the client may route build_request here).
        probe = httpx.AsyncClient.build_request(
            self._client, method, url, content=content, headers=headers
        )
        if not isinstance(probe.stream, httpx.ByteStream) or set(probe.extensions) != {"timeout"}:
            return None
        if body <= 0:
            return _Template(probe.headers, None)
        fields = [
            (name, value)
            for name, value in probe.headers.raw
            if name.lower() in (b"content-length", b"transfer-encoding")
        ]
        if len(fields) != 1 or fields[0][1] != str(len(_PROBE)).encode("ascii"):
            return None
        return _Template(probe.headers, fields[0][0].decode("ascii"))


def with_query(url: httpx.URL, params: Mapping[str, Any]) -> httpx.URL:
    """`httpx.URL(url, params=params)`: the same URL, its query replaced by the encoded
    parameters, without httpx parsing and checking the whole URL again."""
    if type(params) is not dict or not _REPLACE_QUERY:
        return httpx.URL(url, params=params)
    query = query_string(params)
    if len(query) > _QUERY_FAST_MAX:
        return httpx.URL(url, params=params)
    return _replace_query(url, query)


def _replace_query(url: httpx.URL, query: str) -> httpx.URL:
    # httpx keeps a URL as its parsed components (`_uri_reference`, a NamedTuple); an
    # encoded query string is already in the form httpx's own parsing leaves it (only
    # unreserved characters, `%XX`, `+`, `=` and `&`), so the parts are put together
    # directly. `_replaces_queries_as_httpx` checks this against httpx at import.
    return _with_parts(url, query=query)


def _with_parts(url: httpx.URL, **parts: Any) -> httpx.URL:
    """`url` with some of its parsed components (`_uri_reference`, a NamedTuple, which
    is how httpx keeps a URL) replaced as given, without parsing anything again."""
    made = httpx.URL.__new__(httpx.URL)
    made._uri_reference = url._uri_reference._replace(**parts)
    return made


def _replaces_queries_as_httpx() -> bool:
    """True when `_replace_query` gives what httpx gives for a sample of URLs and
    parameters (False on another httpx whose URLs are kept otherwise: httpx then builds
    them)."""
    samples: list[tuple[str, dict[str, Any]]] = [
        ("http://h.example/api/Users", {"page": 2, "count": "500"}),
        ("https://H.example:8443/a%20b/api/Rule/5?x=1#frag", {"q": "a b/c?d&e=f", "n": None}),
        ("http://[::1]:80/p/", {"list": ["1", "ü"], "flag": True, "off": False, "": "%"}),
    ]
    try:
        for text, params in samples:
            url = httpx.URL(text)
            ours, theirs = _replace_query(url, query_string(params)), httpx.URL(url, params=params)
            if not _same_url(ours, theirs):
                return False
    except Exception:  # anything: httpx builds the URLs then
        return False
    return True


def _same_url(ours: httpx.URL, theirs: httpx.URL) -> bool:
    return (str(ours), ours.raw_path, ours.netloc) == (
        str(theirs),
        theirs.raw_path,
        theirs.netloc,
    ) and ours == theirs


_REPLACE_QUERY = _replaces_queries_as_httpx()

# A relative path of plain segments (letters, digits, `-`, `_`, `~`; no dot, no empty
# segment, no query): httpx neither quotes nor normalises anything in it.
_PLAIN_PATH = re.compile(r"[A-Za-z0-9_~-]+(?:/[A-Za-z0-9_~-]+)*")
_JOIN_MAX = 2048  # longer paths go through httpx, which checks their length
_JOIN: bool | None = None  # whether the direct join is httpx's (_joins_as_httpx)


def join_path(client: httpx.AsyncClient, path: str) -> httpx.URL:
    """`client.build_request("GET", path).url`: the relative `path` joined to the
    client's base URL as httpx joins it (`AsyncClient._merge_url`). For a path of plain
    segments and a base without a query or fragment, the parts are put together directly
    (the base's path, already normalised and quoted by httpx, followed by the path, which
    needs neither): httpx otherwise parses the path, then the whole URL again, per
    environment and path (issue 25; `_joins_as_httpx` checks this against httpx at
    the first join). Anything else is httpx's own join."""
    global _JOIN
    if _JOIN is None:  # checked at the first join, not at import (start-up)
        _JOIN = _joins_as_httpx()
    base = client.base_url
    parts = base._uri_reference
    if (
        _JOIN
        and len(path) <= _JOIN_MAX
        and parts.query is None
        and parts.fragment is None
        and not client.params
        and base.is_absolute_url
        and _PLAIN_PATH.fullmatch(path)
    ):
        return _joined(base, path)
    return client.build_request("GET", path).url


def _joined(base: httpx.URL, path: str) -> httpx.URL:
    # As `_replace_query`: the parsed components put together (an empty base path is
    # httpx's `/`, as its `raw_path` gives it).
    return _with_parts(base, path=(base._uri_reference.path or "/") + path)


def _joins_as_httpx() -> bool:
    """True when `join_path`'s direct join gives what httpx gives for a sample of bases
    and paths (False on another httpx whose URLs are kept otherwise: httpx joins them)."""
    samples = [
        ("http://h.example/api/", "Users"),
        ("https://H.example:8443/a%20b/x.y/api/", "Rule/5"),
        ("http://[::1]:80/p/api", "Category/3/Technicians"),
        ("http://127.0.0.1:8080", "a_b~c-d"),
    ]
    try:
        for base, path in samples:
            # No transport or proxies of its own to build (a TLS context: 80 ms).
            client = httpx.AsyncClient(
                base_url=base, transport=httpx.AsyncBaseTransport(), trust_env=False
            )
            if not _same_url(_joined(client.base_url, path), client.build_request("GET", path).url):
                return False
    except Exception:  # anything: httpx joins the paths then
        return False
    return True


async def send_direct(
    client: httpx.AsyncClient,
    transport: httpx.AsyncBaseTransport,
    request: httpx.Request,
    default_encoding: str | Callable[[bytes], str],
) -> httpx.Response:
    """What `client.send(request)` does when the client has no auth, no event hooks and
    does not follow redirects, and `request` carries its timeout: the answer read whole."""
    if client.is_closed:
        raise RuntimeError("Cannot send a request, as the client has been closed.")
    if not isinstance(request.stream, httpx.AsyncByteStream):
        raise RuntimeError("Attempted to send an sync request with an AsyncClient instance.")
    started = time.perf_counter()
    try:
        response = await transport.handle_async_request(request)
    except httpx.RequestError as exc:
        exc.request = request
        raise exc
    response.request = request
    client.cookies.extract_cookies(response)
    response.default_encoding = default_encoding
    if _httpx_log.isEnabledFor(logging.INFO):
        _httpx_log.info(
            'HTTP Request: %s %s "%s %d %s"',
            request.method,
            request.url,
            response.http_version,
            response.status_code,
            response.reason_phrase,
        )
    # httpx notes the elapsed time when it closes the answer's stream: not for an answer
    # its transport handed back already read and closed.
    timed = not response.is_closed
    try:
        if response.has_redirect_location:
            response.next_request = client._build_redirect_request(request, response)
        if type(response.stream) is httpx.ByteStream:  # whole bytes (transport.py's answers)
            read_whole(response)  # what aread does, without its layers of generators
        else:
            await response.aread()
    except BaseException:
        await response.aclose()
        raise
    finally:
        if timed:
            response.elapsed = datetime.timedelta(seconds=time.perf_counter() - started)
    return response


def read_whole(response: httpx.Response) -> None:
    """`response.read()`, for an answer of whole bytes (an `httpx.ByteStream`). Without a
    Content-Encoding to decode, its content is those bytes: set as `read` sets them
    (content, the stream consumed and closed, the bytes downloaded), without httpx's
    generators, chunkers, identity decoder and error contexts (about 70 µs an answer
    here, for a copy of the same bytes: issue 25). Anything else is httpx's `read`: an
    encoded body, another stream, or one already read or closed (httpx's own errors)."""
    stream = response.stream
    if (
        not isinstance(stream, httpx.ByteStream)
        or hasattr(response, "_content")
        or response.is_stream_consumed
        or response.is_closed
        or "content-encoding" in response.headers
    ):
        response.read()
        return
    body = b"".join(stream)  # a ByteStream: its bytes, whole
    response.is_stream_consumed = True
    response._num_bytes_downloaded = len(body)
    response._content = body
    response.is_closed = True  # closing a ByteStream does nothing more
