"""End-to-end fixtures: `reconciler sandbox serve` as a real process on a free loopback
port (`SandboxProcess`), stopped after each test."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from reconciler.sandbox.process import SandboxProcess

Serve = Callable[..., SandboxProcess]


@pytest.fixture
def serve() -> Iterator[Serve]:
    started: list[SandboxProcess] = []

    def start(db: Path, *args: str) -> SandboxProcess:
        sandbox = SandboxProcess(db, *args)
        started.append(sandbox)
        return sandbox.start()

    yield start
    for sandbox in started:
        sandbox.stop()


@pytest.fixture(autouse=True)
def _no_proxy(monkeypatch: pytest.MonkeyPatch) -> None:
    # Tests reach 127.0.0.1 only; a proxy in the environment must not intercept them.
    for name in (
        "HTTP_PROXY",
        "HTTPS_PROXY",
        "ALL_PROXY",
        "http_proxy",
        "https_proxy",
        "all_proxy",
    ):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")
