"""Fixtures shared by the command-line tests that run `main` in-process."""

from __future__ import annotations

import os
from pathlib import Path

import pytest


@pytest.fixture
def clean_workdir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty working directory (`--sandbox` keeps its state under it), with no
    `HELPDESK_*` or `WORKSPACE_*` variable of the shell that runs the tests in force."""
    monkeypatch.chdir(tmp_path)
    for name in list(os.environ):
        if name.startswith(("HELPDESK_", "WORKSPACE_")):
            monkeypatch.delenv(name)
    return tmp_path
