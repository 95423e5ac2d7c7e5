"""The sandbox's server writes an answer's head and body at once (sandbox/protocol.py):
the same bytes in the same order, nothing held back for good."""

from __future__ import annotations

import socket

import pytest

from reconciler.sandbox import SandboxState
from reconciler.sandbox.protocol import JoinedWrites
from reconciler.sandbox.server import SandboxServer

HEAD = b"HTTP/1.1 200 OK\r\ncontent-length: 8\r\ncontent-type: application/json\r\n\r\n"


class Recorder:
    def __init__(self) -> None:
        self.writes: list[bytes] = []
        self.closed = False

    def write(self, data: bytes) -> None:
        self.writes.append(bytes(data))

    def close(self) -> None:
        self.closed = True

    def get_extra_info(self, name: str) -> str:
        return f"extra {name}"


def joined() -> tuple[JoinedWrites, Recorder]:
    recorder = Recorder()
    return JoinedWrites(recorder), recorder  # type: ignore[arg-type]


def test_a_head_goes_out_with_its_body() -> None:
    transport, recorder = joined()
    transport.write(HEAD)
    assert recorder.writes == []
    transport.write(b'{"id":1}')
    assert recorder.writes == [HEAD + b'{"id":1}']
    transport.write(b"more of a streamed body")
    assert recorder.writes[-1] == b"more of a streamed body"


@pytest.mark.parametrize(
    "data",
    [
        b"HTTP/1.1 100 Continue\r\n\r\n",  # the client waits for it before sending its body
        b"0\r\n\r\n",  # the end of a chunked body
        b"HTTP/1.1 200 OK\r\ncontent-length: 3\r\n\r\nabc",  # a head and body already joined
        b"plain body",
        b"",
    ],
)
def test_anything_but_a_head_goes_out_at_once(data: bytes) -> None:
    transport, recorder = joined()
    transport.write(data)
    assert recorder.writes == [data]


def test_a_held_head_is_written_when_the_answer_completes_or_the_connection_closes() -> None:
    transport, recorder = joined()
    transport.write(HEAD)
    transport.flush()  # a HEAD answer: no body follows
    assert recorder.writes == [HEAD]
    transport.flush()
    assert recorder.writes == [HEAD]

    transport, recorder = joined()
    transport.write(HEAD)
    transport.close()  # an answer that failed after its start
    assert recorder.writes == [HEAD] and recorder.closed
    assert transport.get_extra_info("peername") == "extra peername"


def read_until(sock: socket.socket, marker: bytes) -> bytes:
    received = b""
    while marker not in received:
        chunk = sock.recv(65536)
        if not chunk:
            break
        received += chunk
    return received


def test_answers_of_the_served_sandbox_are_whole() -> None:
    with SandboxServer(SandboxState()) as server:
        host = b"Host: " + f"{server.host}:{server.port}".encode() + b"\r\n"
        with socket.create_connection((server.host, server.port), timeout=30) as sock:
            # Two requests at once on a keep-alive connection: each answer whole, in order.
            sock.sendall(
                b"GET / HTTP/1.1\r\n" + host + b"\r\nGET /nowhere HTTP/1.1\r\n" + host + b"\r\n"
            )
            received = read_until(sock, b"Not Found")
            first, _, rest = received.partition(b"\r\n\r\n")
            assert first.startswith(b"HTTP/1.1 200 OK")
            assert b'"helpdesk_url"' in rest
            assert b"HTTP/1.1 404 Not Found" in rest and rest.endswith(b"Not Found")
            # A HEAD answer has no body: its head is written when the answer is complete,
            # not held until the idle connection is closed, so the connection still serves.
            sock.sendall(b"HEAD / HTTP/1.1\r\n" + host + b"\r\n")
            head = read_until(sock, b"\r\n\r\n")
            assert head.startswith(b"HTTP/1.1 200 OK") and head.endswith(b"\r\n\r\n")
            sock.sendall(b"GET /nowhere HTTP/1.1\r\n" + host + b"Connection: close\r\n\r\n")
            assert read_until(sock, b"Not Found").endswith(b"Not Found")
