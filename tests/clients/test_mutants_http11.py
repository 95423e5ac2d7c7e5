"""The HTTP/1.1 codec's exact words and edges: each refusal's message (it reaches the
user as the transport error), the whole head an answer is read into (status, reason,
version, fields, framing, keep-alive), how a request's headers frame it, and the limits
(a head of 100 KiB, a chunk-size line of 1 KiB) at their boundary."""

from __future__ import annotations

import httpx
import pytest

from reconciler.clients import http11
from reconciler.clients.http11 import CHUNKED, UNTIL_CLOSE, Chunks, Head, framing, parse_head

BROKEN_HEADS = [
    (b"HTTP/2 200 OK\r\n\r\n", "not an HTTP/1.1 status line: b'HTTP/2 200 OK'"),
    (b"HTTP/1.1 101 Switching\r\n\r\n", "unexpected status 101"),
    (b"HTTP/1.1 099 Low\r\n\r\n", "unexpected status 99"),
    (b"HTTP/1.1 200 OK\r\nNo colon here\r\n\r\n", "not a header line: b'No colon here'"),
    (b"HTTP/1.1 200 OK\r\n: empty name\r\n\r\n", "not a header line: b': empty name'"),
    (b"HTTP/1.1 200 OK\r\n\tfolded first\r\n\r\n", "a folded header line without a header"),
    (b"HTTP/1.1 200 OK\r\nContent-Length: x\r\n\r\n", "conflicting or bad Content-Length: {b'x'}"),
    (
        b"HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\nTransfer-Encoding: chunked\r\n\r\n",
        "unsupported Transfer-Encoding: b'gzip,chunked'",
    ),
    (b"x" * (http11.MAX_HEAD + 1), "the answer's head is too large"),
]


@pytest.mark.parametrize(("raw", "message"), BROKEN_HEADS)
def test_what_a_broken_answer_head_is_called(raw: bytes, message: str) -> None:
    with pytest.raises(httpx.RemoteProtocolError) as caught:
        parse_head(bytearray(raw), b"GET")
    assert str(caught.value) == message


def test_a_head_of_the_largest_size_still_unfinished_waits_for_more() -> None:
    buffer = bytearray(b"x" * http11.MAX_HEAD)
    assert parse_head(buffer, b"GET") is None
    assert len(buffer) == http11.MAX_HEAD  # nothing taken


def test_a_head_ending_just_within_the_limit_is_read() -> None:
    start = b"HTTP/1.1 200 OK\r\nX: "
    raw = start + b"v" * (http11.MAX_HEAD - len(start)) + b"\r\n\r\n"
    head = parse_head(bytearray(raw), b"GET")
    assert head is not None and head.headers[0][1] == b"v" * (http11.MAX_HEAD - len(start))


WHOLE_HEADS = [
    (
        b"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 201 Created\r\nContent-Length: 2\r\n\r\n",
        b"POST",
        Head(201, b"Created", 1, [(b"Content-Length", b"2")], 2, True),
    ),
    (
        b"HTTP/1.0 200 Fine Thanks\r\nContent-Length:  3 \r\n\r\n",
        b"GET",
        Head(200, b"Fine Thanks", 0, [(b"Content-Length", b"3")], 3, False),
    ),
    (
        b"HTTP/1.1 200 OK\r\nConnection: Keep-Alive, Close\r\nContent-Length: 0\r\n\r\n",
        b"GET",
        Head(
            200,
            b"OK",
            1,
            [(b"Connection", b"Keep-Alive, Close"), (b"Content-Length", b"0")],
            0,
            False,
        ),
    ),
    (
        b"HTTP/1.1 200 OK\r\nConnection: closed-ish\r\nContent-Length: 0\r\n\r\n",
        b"GET",
        Head(200, b"OK", 1, [(b"Connection", b"closed-ish"), (b"Content-Length", b"0")], 0, True),
    ),
    (
        b"HTTP/1.1 200 OK\r\ntransfer-encoding: Chunked\r\nContent-Length: 9\r\n\r\n",
        b"GET",
        Head(
            200,
            b"OK",
            1,
            [(b"transfer-encoding", b"Chunked"), (b"Content-Length", b"9")],
            CHUNKED,
            True,
        ),
    ),
    (
        b"HTTP/1.1 404 \r\nX-A: 1\r\n\r\n",
        b"GET",
        Head(404, b"", 1, [(b"X-A", b"1")], UNTIL_CLOSE, False),
    ),
    (
        b"HTTP/1.1 200 OK\r\nContent-Length: 7\r\n\r\n",
        b"HEAD",
        Head(200, b"OK", 1, [(b"Content-Length", b"7")], 0, True),
    ),
    (
        b"HTTP/1.1 304 Not Modified\r\nTransfer-Encoding: chunked\r\n\r\n",
        b"GET",
        Head(304, b"Not Modified", 1, [(b"Transfer-Encoding", b"chunked")], 0, True),
    ),
    (
        b"HTTP/1.1 199 Odd\r\n\r\nHTTP/1.1 200 OK\r\n\r\n",
        b"GET",
        Head(200, b"OK", 1, [], UNTIL_CLOSE, False),
    ),
]


@pytest.mark.parametrize(("raw", "method", "head"), WHOLE_HEADS)
def test_the_whole_head_an_answer_is_read_into(raw: bytes, method: bytes, head: Head) -> None:
    buffer = bytearray(raw + b"rest")
    assert parse_head(buffer, method) == head
    assert buffer == b"rest"


@pytest.mark.parametrize(
    ("headers", "framed"),
    [
        ([(b"transfer-encoding", b" Chunked "), (b"content-length", b"5")], (CHUNKED, False)),
        ([(b"Content-Length", b"3"), (b"Transfer-Encoding", b"chunked")], (CHUNKED, False)),
        ([(b"CONNECTION", b"Keep-Alive, Close")], (None, True)),
        ([(b"Connection", b"close"), (b"Connection", b"keep-alive")], (None, True)),
        ([(b"Connection", b"keep-alive"), (b"Content-Length", b" 0 ")], (0, False)),
    ],
)
def test_how_a_request_s_headers_frame_it(
    headers: list[tuple[bytes, bytes]], framed: tuple[int | None, bool]
) -> None:
    assert framing(headers) == framed


@pytest.mark.parametrize(
    ("headers", "message"),
    [
        ([(b"Content-Length", b"x1")], "not a valid Content-Length: b'x1'"),
        ([(b"Content-Length", b"-1")], "not a valid Content-Length: b'-1'"),
        ([(b"Transfer-Encoding", b"gzip")], "only Transfer-Encoding: chunked is supported"),
    ],
)
def test_what_a_badly_framed_request_is_called(
    headers: list[tuple[bytes, bytes]], message: str
) -> None:
    with pytest.raises(httpx.LocalProtocolError) as caught:
        framing(headers)
    assert str(caught.value) == message


@pytest.mark.parametrize(
    ("method", "target", "headers", "message"),
    [
        (b"PO ST", b"/", [], "not a valid request line: b'PO ST' b'/'"),
        (b"GET", b"/a\x7f", [], "not a valid request line: b'GET' b'/a\\x7f'"),
        (b"GET", b"/", [(b"X A", b"v")], "not a valid header field: b'X A'"),
        (b"GET", b"/", [(b"X-B", b"a\rb")], "not a valid header field: b'X-B'"),
    ],
)
def test_what_a_request_that_could_smuggle_another_is_called(
    method: bytes, target: bytes, headers: list[tuple[bytes, bytes]], message: str
) -> None:
    with pytest.raises(httpx.LocalProtocolError) as caught:
        http11.request_head(method, target, headers)
    assert str(caught.value) == message


def test_many_different_header_lines_are_all_sent_as_given() -> None:
    for number in range(1100):  # past the lines kept encoded: each still right
        value = b"v%d" % number
        head = http11.request_head(b"GET", b"/", [(b"X-N", value), (b"Host", b"h")])
        assert head == b"GET / HTTP/1.1\r\nX-N: %s\r\nHost: h\r\n\r\n" % value


def test_a_chunk_is_framed_with_its_size_in_hex() -> None:
    assert http11.chunk(b"x" * 26) == b"1a\r\n" + b"x" * 26 + b"\r\n"
    assert http11.chunk(b"") == b""  # an empty part would end the body
    assert http11.LAST_CHUNK == b"0\r\n\r\n"


def feed(*pieces: bytes) -> tuple[Chunks, bytearray]:
    chunks, buffer = Chunks(), bytearray()
    for piece in pieces:
        buffer += piece
        chunks.feed(buffer)
    return chunks, buffer


def test_a_chunk_s_data_may_end_with_a_bare_lf_or_a_cr_arriving_alone() -> None:
    chunks, buffer = feed(b"3\r\nabc", b"\r", b"\n2\r\nde\n0\r\n\r\nNEXT")
    assert (chunks.done, chunks.parts, buffer) == (True, [b"abc", b"de"], b"NEXT")


def test_trailer_lines_are_skipped_up_to_the_blank_line() -> None:
    chunks, buffer = feed(b"1\r\na\r\n0\r\nX-T: 1\r\n", b"X-U: 2\r\n")
    assert (chunks.done, buffer) == (False, b"")
    chunks.feed(bytearray(b"\r\nNEXT"))
    assert chunks.done and chunks.parts == [b"a"]


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        (b"zz\r\n", "not a valid chunk size line"),
        (b"3\r\nabcXY", "a chunk's data not followed by CRLF"),
        (b"5;" + b"x" * 1023, "not a valid chunk size line"),  # 1025 bytes, no end
        (b"0\r\n" + b"T" * (http11.MAX_HEAD + 1), "the trailers are too large"),
    ],
)
def test_what_a_broken_chunked_body_is_called(raw: bytes, message: str) -> None:
    with pytest.raises(httpx.RemoteProtocolError) as caught:
        Chunks().feed(bytearray(raw))
    assert str(caught.value) == message


def test_an_unfinished_size_line_or_trailer_within_the_limits_waits_for_more() -> None:
    chunks, buffer = feed(b"5;" + b"x" * 1022)  # 1024 bytes: not yet too long
    assert (chunks.done, len(buffer)) == (False, 1024)
    chunks, buffer = feed(b"0\r\n" + b"T" * http11.MAX_HEAD)
    assert (chunks.done, len(buffer)) == (False, http11.MAX_HEAD)
