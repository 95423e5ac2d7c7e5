"""The sandbox the hardening tables run their rows against: one for the package."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from reconciler.sandbox.process import SandboxProcess


@pytest.fixture(scope="package")
def sandbox(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SandboxProcess]:
    with SandboxProcess(tmp_path_factory.mktemp("sandbox") / "s.db") as started:
        yield started
