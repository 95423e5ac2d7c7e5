"""An answer of whole bytes is read (`fastpath.read_whole`, issue 25) into exactly what
httpx's own `Response.read` leaves: the same content, text, JSON, bytes downloaded,
closed and consumed state, the same reads after it, and httpx's errors for a stream
already read or closed."""

from __future__ import annotations

import gzip
import zlib
from collections.abc import Callable
from typing import Any

import httpx
import pytest

from reconciler.clients.fastpath import read_whole

JSON = {"Content-Type": "application/json; charset=utf-8"}
ANSWERS: list[tuple[str, Callable[[], httpx.Response]]] = [
    ("json", lambda: httpx.Response(200, headers=JSON, stream=httpx.ByteStream(b'[{"a": 1}]'))),
    ("empty", lambda: httpx.Response(204, stream=httpx.ByteStream(b""))),
    (
        "latin-1",
        lambda: httpx.Response(
            200,
            headers={"Content-Type": "text/plain; charset=latin-1"},
            stream=httpx.ByteStream("café".encode("latin-1")),
        ),
    ),
    ("no type", lambda: httpx.Response(200, stream=httpx.ByteStream("ü".encode()))),
    ("large", lambda: httpx.Response(200, stream=httpx.ByteStream(b"x" * 200_000))),
    (
        "gzip",
        lambda: httpx.Response(
            200,
            headers={**JSON, "Content-Encoding": "gzip"},
            stream=httpx.ByteStream(gzip.compress(b"[3]")),
        ),
    ),
    (
        "deflate, capitals",
        lambda: httpx.Response(
            200,
            headers={"CONTENT-ENCODING": "Deflate"},
            stream=httpx.ByteStream(zlib.compress(b"[4]")),
        ),
    ),
    (
        "identity",
        lambda: httpx.Response(
            200, headers={"Content-Encoding": "identity"}, stream=httpx.ByteStream(b"[5]")
        ),
    ),
    (
        "an encoding httpx does not know",
        lambda: httpx.Response(
            200, headers={"Content-Encoding": "x-other"}, stream=httpx.ByteStream(b"raw")
        ),
    ),
    ("built with content", lambda: httpx.Response(200, content=b"given")),
    ("another stream", lambda: httpx.Response(200, content=iter([b"a", b"b"]))),
]


def state(response: httpx.Response) -> dict[str, Any]:
    return {
        "content": response.content,
        "text": response.text,
        "encoding": response.encoding,
        "downloaded": response.num_bytes_downloaded,
        "closed": response.is_closed,
        "consumed": response.is_stream_consumed,
        "again": response.read(),
        "bytes": list(response.iter_bytes()),
        "chunks": list(response.iter_bytes(2)),
    }


@pytest.mark.parametrize(("name", "answer"), ANSWERS, ids=[name for name, _ in ANSWERS])
def test_an_answer_is_read_as_httpx_reads_it(
    name: str, answer: Callable[[], httpx.Response]
) -> None:
    theirs = answer()
    theirs.read()
    ours = answer()
    read_whole(ours)
    assert state(ours) == state(theirs)


def test_an_answer_of_bytes_is_read_without_httpx_s_generators(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def not_httpx(self: httpx.Response, *args: Any) -> Any:
        raise AssertionError("read through httpx")

    response = httpx.Response(200, headers=JSON, stream=httpx.ByteStream(b"[1, 2]"))
    monkeypatch.setattr(httpx.Response, "iter_bytes", not_httpx)
    monkeypatch.setattr(httpx.Response, "iter_raw", not_httpx)
    read_whole(response)
    assert response.json() == [1, 2]
    assert (response.is_closed, response.is_stream_consumed, response.num_bytes_downloaded) == (
        True,
        True,
        6,
    )


@pytest.mark.parametrize("already", ["consumed", "closed"])
def test_a_stream_already_read_or_closed_is_httpx_s_error(already: str) -> None:
    def spent() -> httpx.Response:
        response = httpx.Response(200, stream=httpx.ByteStream(b"x"))
        setattr(response, f"is_{'stream_consumed' if already == 'consumed' else 'closed'}", True)
        return response

    with pytest.raises(httpx.StreamError) as theirs:
        spent().read()
    with pytest.raises(type(theirs.value)) as ours:
        read_whole(spent())
    assert str(ours.value) == str(theirs.value)
