"""The transport's HTTP/1.1 codec (reconciler/clients/http11.py), case by case: what a
request's head may hold, how an answer's head frames its body, chunked bodies however
the bytes arrive."""

from __future__ import annotations

import httpx
import pytest
from hypothesis import given
from hypothesis import strategies as st

from reconciler.clients import http11
from reconciler.clients.http11 import (
    CHUNKED,
    UNTIL_CLOSE,
    Chunks,
    framing,
    parse_head,
    request_head,
)


def test_a_request_head() -> None:
    head = request_head(b"POST", b"/api/Company?x=1", [(b"Host", b"h"), (b"X-A", b" v ")])
    assert head == b"POST /api/Company?x=1 HTTP/1.1\r\nHost: h\r\nX-A: v\r\n\r\n"


@pytest.mark.parametrize(
    ("method", "target", "headers"),
    [
        (b"PO ST", b"/", []),
        (b"GET", b"/a b", []),
        (b"GET", b"/a\r\nX: 1", []),
        (b"GET", b"/", [(b"X-A", b"v\r\nInjected: 1")]),
        (b"GET", b"/", [(b"X-A", b"v\nInjected: 1")]),
        (b"GET", b"/", [(b"X-A", b"v\x00")]),
        (b"GET", b"/", [(b"X A", b"v")]),
        (b"GET", b"/", [(b"", b"v")]),
    ],
)
def test_a_request_that_could_smuggle_another_is_refused(
    method: bytes, target: bytes, headers: list[tuple[bytes, bytes]]
) -> None:
    with pytest.raises(httpx.LocalProtocolError):
        request_head(method, target, headers)


@pytest.mark.parametrize(
    ("headers", "expected"),
    [
        ([], (None, False)),
        ([(b"Content-Length", b"12")], (12, False)),
        ([(b"Transfer-Encoding", b"chunked")], (CHUNKED, False)),
        ([(b"Connection", b"close"), (b"Content-Length", b"0")], (0, True)),
    ],
)
def test_how_a_request_frames_its_body(
    headers: list[tuple[bytes, bytes]], expected: tuple[int | None, bool]
) -> None:
    assert framing(headers) == expected


@pytest.mark.parametrize("value", [b"gzip", b"gzip, chunked"])
def test_a_request_coding_other_than_chunked_is_refused(value: bytes) -> None:
    with pytest.raises(httpx.LocalProtocolError):
        framing([(b"Transfer-Encoding", value)])


HEADS = [
    # (raw head, method, status, length, keep-alive)
    (b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\n", b"GET", 200, 5, True),
    (b"HTTP/1.1 200 OK\nContent-Length: 5\n\n", b"GET", 200, 5, True),  # bare LF
    (b"HTTP/1.1 200\r\nContent-Length: 5\r\n\r\n", b"GET", 200, 5, True),  # no reason
    (b"HTTP/1.1 200 OK\r\nContent-Length: 5, 5\r\n\r\n", b"GET", 200, 5, True),
    (b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n", b"GET", 200, CHUNKED, True),
    (
        b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nContent-Length: 3\r\n\r\n",
        b"GET",
        200,
        CHUNKED,
        True,
    ),
    (b"HTTP/1.1 200 OK\r\n\r\n", b"GET", 200, UNTIL_CLOSE, False),
    (b"HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 0\r\n\r\n", b"GET", 200, 0, False),
    (b"HTTP/1.0 200 OK\r\nContent-Length: 0\r\n\r\n", b"GET", 200, 0, False),
    (b"HTTP/1.1 200 OK\r\nContent-Length: 99\r\n\r\n", b"HEAD", 200, 0, True),
    (b"HTTP/1.1 204 No Content\r\nContent-Length: 99\r\n\r\n", b"GET", 204, 0, True),
    (b"HTTP/1.1 304 Not Modified\r\n\r\n", b"GET", 304, 0, True),
    (
        b"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 201 Created\r\nContent-Length: 2\r\n\r\n",
        b"POST",
        201,
        2,
        True,
    ),
]


@pytest.mark.parametrize(("raw", "method", "status", "length", "keep"), HEADS)
def test_how_an_answer_frames_its_body(
    raw: bytes, method: bytes, status: int, length: int, keep: bool
) -> None:
    buffer = bytearray(raw + b"body!")
    head = parse_head(buffer, method)
    assert head is not None
    assert (head.status, head.length, head.keep_alive) == (status, length, keep)
    assert buffer == b"body!"  # the head, and only the head, was taken


def test_an_answer_head_in_pieces_waits_for_the_rest() -> None:
    raw = b"HTTP/1.1 200 OK\r\nX-Folded: a\r\n  b\r\nContent-Length: 0\r\n\r\n"
    buffer = bytearray()
    for byte in raw[:-1]:
        buffer.append(byte)
        assert parse_head(buffer, b"GET") is None
    buffer.append(raw[-1])
    head = parse_head(buffer, b"GET")
    assert head is not None
    assert head.headers == [(b"X-Folded", b"a b"), (b"Content-Length", b"0")]
    assert (head.reason, head.minor) == (b"OK", 1)


@pytest.mark.parametrize(
    "raw",
    [
        b"HTTP/2 200 OK\r\n\r\n",
        b"HTTP/1.1 20 OK\r\n\r\n",
        b"SSH-2.0-OpenSSH\r\n\r\n",
        b"HTTP/1.1 101 Switching\r\n\r\n",
        b"HTTP/1.1 200 OK\r\nNo colon here\r\n\r\n",
        b"HTTP/1.1 200 OK\r\nBad Name: x\r\n\r\n",
        b"HTTP/1.1 200 OK\r\n  folded first\r\n\r\n",
        b"HTTP/1.1 200 OK\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n",
        b"HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n",
        b"HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\n\r\n",
        b"HTTP/1.1 200 OK\r\nX: " + b"x" * (http11.MAX_HEAD + 10),
    ],
)
def test_a_broken_answer_head_is_a_remote_protocol_error(raw: bytes) -> None:
    with pytest.raises(httpx.RemoteProtocolError):
        parse_head(bytearray(raw), b"GET")


def _chunked(parts: list[bytes], extension: bytes = b"") -> bytes:
    body = b"".join(b"%X%s\r\n%s\r\n" % (len(p), extension, p) for p in parts if p)
    return body + b"0\r\nTrailer: x\r\n\r\n"


@given(
    parts=st.lists(st.binary(min_size=1, max_size=40), max_size=8),
    cuts=st.lists(st.integers(min_value=1, max_value=7), max_size=60),
    extension=st.sampled_from([b"", b";name=value", b" ;x"]),
)
def test_a_chunked_body_however_its_bytes_arrive(
    parts: list[bytes], cuts: list[int], extension: bytes
) -> None:
    raw = _chunked(parts, extension) + b"NEXT"
    chunks, buffer, at = Chunks(), bytearray(), 0
    for size in [*cuts, len(raw)]:
        buffer += raw[at : at + size]
        at += size
        chunks.feed(buffer)
        if chunks.done:
            break
    assert chunks.done
    assert b"".join(chunks.parts) == b"".join(parts)
    assert bytes(buffer) + raw[at:] == b"NEXT"  # what follows the body is left


@pytest.mark.parametrize("raw", [b"zz\r\n", b"5\r\nabcdeXY", b"5;" + b"x" * 2000])
def test_a_broken_chunked_body_is_a_remote_protocol_error(raw: bytes) -> None:
    with pytest.raises(httpx.RemoteProtocolError):
        Chunks().feed(bytearray(raw))
