"""Misbehaving servers on 127.0.0.1 for the hardening tables, each recording what it was
asked: `silent_server` accepts connections and never answers; `answering_server` answers
every request with one fixed status and body (`{authorization}` in the body becomes the
request's Authorization header, `{authorization_cut}` its first 14 characters and `…`: a
server that echoes it), except `POST /Authorization`,
which it answers as the helpdesk does unless `echo_at_login` is set."""

from __future__ import annotations

import json
import socket
import threading
from collections.abc import Iterator
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
    body: str, *, status: int = 200, echo_at_login: bool = False
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
    recorded.url = f"http://127.0.0.1:{server.server_address[1]}/helpdesk"
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield recorded
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)
