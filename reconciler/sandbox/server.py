"""Run the sandbox under uvicorn: in the foreground (`reconciler sandbox serve`) or in a
background thread on a free loopback port (tests, `--sandbox`)."""

from __future__ import annotations

import logging
import socket
import threading
import time

import uvicorn

from reconciler.sandbox.app import create_app
from reconciler.sandbox.errors import ConnectionDropped
from reconciler.sandbox.state import SandboxState


class _HideDroppedConnections(logging.Filter):
    """The injected dropped connection is a feature, not an error worth a traceback."""

    def filter(self, record: logging.LogRecord) -> bool:
        exc = record.exc_info[1] if record.exc_info else None
        return not isinstance(exc, ConnectionDropped)


def quiet_dropped_connections() -> None:
    logging.getLogger("uvicorn.error").addFilter(_HideDroppedConnections())


def free_port(host: str = "127.0.0.1") -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((host, 0))
        return int(sock.getsockname()[1])


class SandboxServer:
    """A sandbox served by uvicorn in a daemon thread; a context manager.

    >>> with SandboxServer(SandboxState()) as server:
    ...     server.helpdesk_url  # http://127.0.0.1:PORT/helpdesk
    """

    def __init__(self, state: SandboxState, host: str = "127.0.0.1", port: int = 0) -> None:
        self.state = state
        self.host = host
        self.port = port or free_port(host)
        quiet_dropped_connections()
        config = uvicorn.Config(
            create_app(state),
            host=host,
            port=self.port,
            log_level="warning",
            access_log=False,
            lifespan="off",
        )
        self._server = uvicorn.Server(config)
        self._thread = threading.Thread(target=self._server.run, name="sandbox", daemon=True)

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}"

    @property
    def helpdesk_url(self) -> str:
        return f"{self.url}/helpdesk"

    @property
    def workspace_url(self) -> str:
        return f"{self.url}/workspace"

    def start(self) -> SandboxServer:
        self._thread.start()
        deadline = time.monotonic() + 10
        while not self._server.started:
            if not self._thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError(f"the sandbox did not start on {self.host}:{self.port}")
            time.sleep(0.01)
        return self

    def stop(self) -> None:
        self._server.should_exit = True
        self._thread.join(timeout=10)
        self.state.store.close()

    def __enter__(self) -> SandboxServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
