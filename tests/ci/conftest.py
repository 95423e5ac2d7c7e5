"""Fixtures for the CI recipe tests: a manifests repository as the recipes expect it (the
acme example at `manifests/`, the recipes' default MANIFESTS), and sandboxes started as
real processes, stopped after each test."""

from __future__ import annotations

import shutil
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from reconciler.sandbox.process import SandboxProcess
from tests.ci.recipes import ACME_SEED, EXAMPLE

StartSandbox = Callable[..., SandboxProcess]


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A checkout of a manifests repository: `manifests/` holds a copy of examples/acme."""
    root = tmp_path / "repo"
    shutil.copytree(EXAMPLE, root / "manifests")
    return root


@pytest.fixture
def start_sandbox(tmp_path: Path) -> Iterator[StartSandbox]:
    started: list[SandboxProcess] = []

    def start(*args: str, seed: Path = ACME_SEED) -> SandboxProcess:
        db = tmp_path / f"sandbox-{len(started)}.db"
        sandbox = SandboxProcess(db, "--seed", str(seed), "--rate-limit", "0", *args)
        started.append(sandbox)
        return sandbox.start()

    yield start
    for sandbox in started:
        sandbox.stop()
