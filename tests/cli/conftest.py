"""Fixtures shared by the command-line tests that run `main` in-process."""

from __future__ import annotations

import os
import socket
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


def fleet_project(
    workdir: Path,
    sandbox: SandboxProcess,
    monkeypatch: pytest.MonkeyPatch,
    manifest: str,
    up: tuple[str, ...],
    down: tuple[str, ...] = (),
) -> Path:
    """A project in `workdir` whose environments `up` all point at `sandbox` and `down`
    at a port nothing listens on, each planning `good/c.yaml` (`manifest`), with the
    sandbox's token in the environment."""
    with socket.socket() as probe:  # a port nothing listens on once the probe closes
        probe.bind(("127.0.0.1", 0))
        closed = probe.getsockname()[1]
    urls = {name: sandbox.helpdesk_url for name in up}
    urls |= {name: f"http://127.0.0.1:{closed}/helpdesk" for name in down}
    (workdir / "good").mkdir()
    (workdir / "good" / "c.yaml").write_text(manifest, encoding="utf-8")
    environments = "".join(
        f"  {name}:\n    paths: [good]\n    helpdesk_url: {url}\n" for name, url in urls.items()
    )
    (workdir / "reconciler.yaml").write_text(f"environments:\n{environments}", encoding="utf-8")
    monkeypatch.setenv("HELPDESK_TOKEN", sandbox.env["HELPDESK_TOKEN"])
    return workdir
