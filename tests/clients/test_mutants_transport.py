"""The transport sending a request body it reads as a stream (an async iterator given as
`content`) with the length stated in `Content-Length`: sent as it comes, framed by that
length; a stream shorter or longer than its stated length is refused as the local
protocol error it is (the server would wait for the missing bytes, or read the surplus as
the next request), and the connection is not used again."""

from __future__ import annotations

from collections.abc import AsyncIterator

import httpx
import pytest

from tests.clients.rawserver import RawServer, Seen, answer
from tests.clients.test_transport import run


async def parts(*chunks: bytes) -> AsyncIterator[bytes]:
    for chunk in chunks:
        yield chunk


async def echo(seen: Seen) -> bytes:
    return answer(200, b'{"got": "%s"}' % seen.body)


def test_a_streamed_body_of_its_stated_length_is_sent_as_is() -> None:
    async def check(server: RawServer, client: httpx.AsyncClient) -> None:
        for _ in range(2):  # and the connection is kept for the next
            content = parts(b"name=", b"Acme", b"")
            headers = {"Content-Length": "9"}
            response = await client.post("/api/Company", content=content, headers=headers)
            assert response.json() == {"got": "name=Acme"}

    server = run(check, echo)
    assert server.connections == 1
    assert [s.headers.get(b"transfer-encoding") for s in server.seen] == [None, None]
    assert [s.headers[b"content-length"] for s in server.seen] == [b"9", b"9"]


@pytest.mark.parametrize(
    ("chunks", "length", "message"),
    [
        ((b"name=", b"Ac"), 9, "the body is shorter than its Content-Length"),
        ((b"name=", b"Acme Corp"), 9, "the body is longer than its Content-Length"),
        ((b"x",), 0, "the body is longer than its Content-Length"),
    ],
    ids=["shorter", "longer", "one-byte-over-zero"],
)
def test_a_streamed_body_not_of_its_stated_length_is_refused(
    chunks: tuple[bytes, ...], length: int, message: str
) -> None:
    async def check(server: RawServer, client: httpx.AsyncClient) -> None:
        with pytest.raises(httpx.LocalProtocolError) as refused:
            await client.post(
                "/api/Company",
                content=parts(*chunks),
                headers={"Content-Length": str(length)},
            )
        assert str(refused.value) == message
        # The next request goes on a connection of its own, and is answered.
        assert (await client.post("/api/Company", content=b"name=Acme")).json() == {
            "got": "name=Acme"
        }

    server = run(check, echo)
    # Nothing but what the stated length framed reached the server as a request: a
    # stated length of 0 frames an empty one (the surplus byte is never written).
    assert [s.body for s in server.seen] == [b""] * (length == 0) + [b"name=Acme"]
    assert server.connections == 2


def test_an_empty_streamed_body_of_length_zero_is_sent() -> None:
    async def check(server: RawServer, client: httpx.AsyncClient) -> None:
        response = await client.post("/api/Ping", content=parts(), headers={"Content-Length": "0"})
        assert response.json() == {"got": ""}

    run(check, echo)
