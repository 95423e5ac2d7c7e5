"""Fixtures shared by the command-line tests that run `main` in-process."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from reconciler.sandbox.process import SandboxProcess


@pytest.fixture
def clean_workdir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty working directory (`--sandbox` keeps its state under it), with no
    `HELPDESK_*` or `WORKSPACE_*` variable of the shell that runs the tests in force."""
    monkeypatch.chdir(tmp_path)
    for name in list(os.environ):
        if name.startswith(("HELPDESK_", "WORKSPACE_")):
            monkeypatch.delenv(name)
    return tmp_path


@pytest.fixture(scope="module")
def sandbox(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SandboxProcess]:
    """A sandbox process with the acme tenant and no rate limit, one per test module (the
    fleet tests point several environments at it)."""
    db = tmp_path_factory.mktemp("sandbox") / "sandbox.db"
    process = SandboxProcess(db, "--rate-limit", "0", "--seed", "acme").start()
    try:
        yield process
    finally:
        process.stop()
