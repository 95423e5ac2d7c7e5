"""The sandbox for the tests and the benchmarks: `reconciler sandbox serve` in a child
process (`SandboxProcess`: what the end-to-end tests and the benchmarks run against, so
that server and client do not share one interpreter), or an app called in-process.

httpx ships `ASGITransport` for async clients only; `InProcessTransport` wraps it so that
a plain `httpx.Client(transport=InProcessTransport(app))` talks to the sandbox without a
socket. Each request runs on a fresh event loop, so it must not be used from async code.
"""

from __future__ import annotations

import asyncio
import queue
import subprocess
import sys
import threading
import time
from pathlib import Path
from subprocess import DEVNULL, PIPE
from typing import IO

import httpx
from starlette.types import ASGIApp


class SandboxProcess:
    """Starts the sandbox on a free loopback port and parses the `export` lines it prints
    into `env` (HELPDESK_URL, HELPDESK_USERNAME, HELPDESK_PASSWORD, HELPDESK_TOKEN,
    WORKSPACE_URL, WORKSPACE_API_KEY). A new database starts empty (`--empty`: one
    administrator, generated credentials) unless `args` give a `--seed` or `empty` is
    False (then as `sandbox serve` starts by default): tests and benchmarks build what
    they need themselves."""

    def __init__(
        self,
        db: Path,
        *args: str,
        start_timeout: float = 30.0,
        empty: bool = True,
        runner: list[str] | None = None,
    ) -> None:
        self.db = db
        # What runs `reconciler` in the child: `-m reconciler`, or a script given the same
        # arguments (a benchmark's profiler, benchmarks/profile_command.py).
        self.runner = runner or ["-m", "reconciler"]
        # With `--tenant`, each tenant's variables are printed with its prefix (ACME_...).
        self.tenants = sum(1 for arg in args if arg == "--tenant" or arg.startswith("--tenant="))
        plain = not empty or "--seed" in args or self.tenants
        self.args = args if plain else (*args, "--empty")
        self.start_timeout = start_timeout
        self.env: dict[str, str] = {}
        self.proc: subprocess.Popen[str] | None = None

    def start(self) -> SandboxProcess:
        if self.proc is not None and self.proc.poll() is None:
            # A second process would replace `proc`, and `stop` would never end the first.
            raise RuntimeError("this sandbox is already running; stop it first")
        serve = ["sandbox", "serve", "--host", "127.0.0.1", "--port", "0", "--db"]
        cmd = [sys.executable, *self.runner, *serve, str(self.db), *self.args]
        self.proc = subprocess.Popen(cmd, stdout=PIPE, stderr=PIPE, stdin=DEVNULL, text=True)
        # A thread reads stdout: a selector would miss lines already in Python's buffer.
        lines: queue.Queue[str | None] = queue.Queue()
        threading.Thread(target=_pump, args=(self.proc.stdout, lines), daemon=True).start()
        deadline = time.monotonic() + self.start_timeout
        self.env = {}
        while sum(name.endswith("WORKSPACE_API_KEY") for name in self.env) < max(self.tenants, 1):
            try:
                line = lines.get(timeout=max(0.0, deadline - time.monotonic()))
            except queue.Empty:
                line = None
            if line is None:  # the process ended, or took too long
                ended = self.proc.poll() is not None
                err = self.proc.stderr.read() if ended and self.proc.stderr else ""
                self.stop()
                raise RuntimeError(f"the sandbox did not start: {(err or '').strip()}")
            # `export NAME=value`, also behind a comment (the token alternative).
            if "export " in line:
                name, _, value = line.split("export ", 1)[1].strip().partition("=")
                self.env[name] = value.strip("'")
        return self

    @property
    def helpdesk_url(self) -> str:
        return self.env["HELPDESK_URL"]

    @property
    def workspace_url(self) -> str:
        return self.env["WORKSPACE_URL"]

    @property
    def url(self) -> str:
        return self.helpdesk_url.rsplit("/helpdesk", 1)[0]

    @property
    def auth(self) -> tuple[str, str]:
        return self.env["HELPDESK_USERNAME"], self.env["HELPDESK_PASSWORD"]

    def stop(self) -> None:
        proc = self.proc
        if proc is None:
            return
        if proc.poll() is None:
            proc.terminate()
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        for stream in (proc.stdout, proc.stderr):
            if stream:
                stream.close()

    def __enter__(self) -> SandboxProcess:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def _pump(stream: IO[str], lines: queue.Queue[str | None]) -> None:
    for line in stream:
        lines.put(line)
    lines.put(None)


class InProcessTransport(httpx.BaseTransport):
    def __init__(self, app: ASGIApp, client: tuple[str, int] = ("127.0.0.1", 50000)) -> None:
        self._inner = httpx.ASGITransport(app=app, client=client)

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        return asyncio.run(self._send(request))

    async def _send(self, request: httpx.Request) -> httpx.Response:
        response = await self._inner.handle_async_request(request)
        # Raw bytes: the outer client decodes a gzip answer itself.
        content = b"".join([chunk async for chunk in response.aiter_raw()])
        return httpx.Response(
            response.status_code,
            headers=response.headers,
            content=content,
            extensions=response.extensions,
        )
