"""Misbehaving servers on 127.0.0.1 for the hardening tables, each recording what it was
asked: `silent_server` accepts connections and never answers; `answering_server` answers
every request with one fixed status and body (`{authorization}` in the body becomes the
request's Authorization header, `{authorization_cut}` its first 14 characters and `…`: a
server that echoes it), except `POST /Authorization`,
which it answers as the helpdesk does unless `echo_at_login` is set; over TLS with `tls`.
`raw_server` hands each connection to a function that answers as it likes (dripping,
`100 Continue` forever, an endless body)."""

from __future__ import annotations

import contextlib
import json
import socket
import ssl
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

CALLER = {"UserID": 1, "Username": "admin", "IsAdmin": True}


@dataclass
class Recorded:
    url: str
    requests: list[tuple[str, str]] = field(default_factory=list)  # (method, path)

    def writes(self) -> list[tuple[str, str]]:
        """Requests that could change something: anything but GET and the login."""
        return [
            (method, path)
            for method, path in self.requests
            if method != "GET" and not path.lower().split("?")[0].endswith("/authorization")
        ]


@contextmanager
def silent_server() -> Iterator[Recorded]:
    """A bound socket that accepts every connection and stays silent until closed."""
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.bind(("127.0.0.1", 0))
    listener.listen(16)
    listener.settimeout(0.2)
    recorded = Recorded(f"http://127.0.0.1:{listener.getsockname()[1]}/helpdesk")
    held: list[socket.socket] = []
    stop = threading.Event()

    def accept() -> None:
        while not stop.is_set():
            try:
                held.append(listener.accept()[0])
            except OSError:
                continue

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    try:
        yield recorded
    finally:
        stop.set()
        thread.join(timeout=5)
        for connection in held:
            connection.close()
        listener.close()


@contextmanager
def answering_server(
    body: str, *, status: int = 200, echo_at_login: bool = False, tls: ssl.SSLContext | None = None
) -> Iterator[Recorded]:
    recorded = Recorded("")

    class Handler(BaseHTTPRequestHandler):
        def _answer(self) -> None:
            length = int(self.headers.get("content-length") or 0)
            self.rfile.read(length)
            recorded.requests.append((self.command, self.path))
            login = self.path.lower().split("?")[0].endswith("/authorization")
            if login and not echo_at_login:
                code, text = 200, json.dumps(CALLER)
            else:
                code = status
                header = self.headers.get("Authorization", "")
                text = body.replace("{authorization}", header)
                text = text.replace("{authorization_cut}", header[:14] + "…")
            data = text.encode()
            self.send_response(code)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        do_GET = do_POST = do_PUT = do_DELETE = _answer

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    if tls is not None:  # https://, with the certificate `tls` holds
        server.socket = tls.wrap_socket(
            server.socket, server_side=True, do_handshake_on_connect=False
        )
    scheme = "https" if tls is not None else "http"
    recorded.url = f"{scheme}://127.0.0.1:{server.server_address[1]}/helpdesk"
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield recorded
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)


# Answers a connection: its socket, the head of its first request, the server's stop.
Answer = Callable[[socket.socket, bytes, threading.Event], None]


@contextmanager
def raw_server(answer: Answer) -> Iterator[Recorded]:
    """A server on 127.0.0.1 that hands each connection, once its first request's head is
    read, to `answer` (in a thread of its own) with an event set when the server stops."""
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.bind(("127.0.0.1", 0))
    listener.listen(16)
    listener.settimeout(0.2)
    recorded = Recorded(f"http://127.0.0.1:{listener.getsockname()[1]}/helpdesk")
    stop = threading.Event()
    threads: list[threading.Thread] = []

    def serve(connection: socket.socket) -> None:
        with connection:
            head = b""
            while b"\r\n\r\n" not in head and not stop.is_set():
                data = connection.recv(65536)
                if not data:
                    return
                head += data
            method, path = head.split(b" ", 2)[:2]
            recorded.requests.append((method.decode(), path.decode()))
            with contextlib.suppress(OSError):  # the client gave up
                answer(connection, head, stop)

    def accept() -> None:
        while not stop.is_set():
            try:
                connection = listener.accept()[0]
            except OSError:
                continue
            thread = threading.Thread(target=serve, args=(connection,), daemon=True)
            thread.start()
            threads.append(thread)

    acceptor = threading.Thread(target=accept, daemon=True)
    acceptor.start()
    try:
        yield recorded
    finally:
        stop.set()
        acceptor.join(timeout=5)
        for thread in threads:
            thread.join(timeout=5)
        listener.close()


def drip(head: bytes, body: bytes, *, every: float = 0.5, until: float = 60.0) -> Answer:
    """An answer that sends `head` whole, then `body` one byte every `every` seconds (at
    most `until` seconds): each read is quick, the answer never whole."""

    def answer(connection: socket.socket, request: bytes, stop: threading.Event) -> None:
        connection.sendall(head)
        for count, byte in enumerate(body):
            if stop.wait(every) or count * every > until:
                return
            connection.sendall(bytes([byte]))

    return answer


def continue_forever(connection: socket.socket, request: bytes, stop: threading.Event) -> None:
    """`100 Continue` every half second for a minute, and never the answer."""
    for _ in range(120):
        if stop.wait(0.5):
            return
        connection.sendall(b"HTTP/1.1 100 Continue\r\n\r\n")
