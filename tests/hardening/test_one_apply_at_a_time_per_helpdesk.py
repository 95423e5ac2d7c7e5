"""One apply at a time per helpdesk, whatever its spelling: the apply lock is keyed on the
normalised service address (loopback names as one, default ports dropped, lower-case
host, the helpdesk's path compared ignoring case). Rows as tests/hardening/table.py runs
them."""

# ruff: noqa: E501  (a row is one line, whatever its length: adding a case is adding a line)

from __future__ import annotations

import errno
import os
from pathlib import Path

import pytest

from reconciler.applying import lock
from reconciler.clients.urls import service_address
from reconciler.sandbox.process import SandboxProcess
from tests.e2e.test_plan_cli import run
from tests.hardening.table import OK, Row, basic_env, check_rows, run_row

ROWS = [
    Row("apply lock under another spelling of the helpdesk", "apply m.yaml --yes", 1, "another apply is running for http://localhost:", setup="lock_held", env={"HELPDESK_URL": "http://LOCALHOST:{port}/HelpDesk/"}),
    Row("apply lock under 127.1", "apply m.yaml --yes", 1, "another apply is running for http://localhost:", setup="lock_held", env={"HELPDESK_URL": "http://127.1:{port}/helpdesk"}),
    Row("apply lock under [::1]", "apply m.yaml --yes", 1, "another apply is running for http://localhost:", setup="lock_held", env={"HELPDESK_URL": "http://[::1]:{port}/helpdesk"}),
    Row("apply lock under 2130706433", "apply m.yaml --yes", 1, "another apply is running for http://localhost:", setup="lock_held", env={"HELPDESK_URL": "http://2130706433:{port}/helpdesk"}),
]  # fmt: skip


@pytest.mark.parametrize("row", ROWS, ids=[row.id for row in ROWS])
def test_the_row_exits_with_its_message_and_writes_nothing(
    row: Row, sandbox: SandboxProcess, tmp_path: Path
) -> None:
    run_row(row, sandbox, tmp_path)


def test_the_rows_have_unique_ids_and_known_setups() -> None:
    check_rows(ROWS)


@pytest.mark.parametrize(
    ("spelling", "service", "address"),
    [
        ("http://127.0.0.1:8080/helpdesk", "helpdesk", "http://localhost:8080/helpdesk"),
        ("HTTP://LocalHost.:8080//HelpDesk/", "helpdesk", "http://localhost:8080/helpdesk"),
        ("http://[::1]:8080/help%64esk", "helpdesk", "http://localhost:8080/helpdesk"),
        ("https://Acme.Example.com:443/", "helpdesk", "https://acme.example.com"),
        ("http://acme.example.com:80/HD", "helpdesk", "http://acme.example.com/hd"),
        ("http://127.0.0.1:9000/WS/", "workspace", "http://localhost:9000/WS"),  # as written
        ("http://127.0.0.2:8080/helpdesk", "helpdesk", "http://127.0.0.2:8080/helpdesk"),
        ("http://127.1:8080/helpdesk", "helpdesk", "http://localhost:8080/helpdesk"),
        ("http://0x7f.0.0.1:8080/helpdesk", "helpdesk", "http://localhost:8080/helpdesk"),
        ("http://017700000001:8080/helpdesk", "helpdesk", "http://localhost:8080/helpdesk"),
        ("http://[0:0:0:0:0:0:0:1]:8080/helpdesk", "helpdesk", "http://localhost:8080/helpdesk"),
        ("http://[::ffff:127.0.0.1]:8080/helpdesk", "helpdesk", "http://localhost:8080/helpdesk"),
        ("http://10.1:8080/helpdesk", "helpdesk", "http://10.0.0.1:8080/helpdesk"),
        ("http://acme.example.com/helpdesk", "helpdesk", "http://acme.example.com/helpdesk"),
    ],
)
def test_the_lock_address_of_each_spelling(spelling: str, service: str, address: str) -> None:
    assert service_address(spelling, service) == address


def test_two_environments_bound_to_one_helpdesk_are_a_project_error(tmp_path: Path) -> None:
    """However each spells the address, both environments are named."""
    (tmp_path / "reconciler.yaml").write_text(
        "environments:\n"
        "  acme: {paths: [m.yaml], helpdesk_url: 'http://127.1:8080/helpdesk'}\n"
        "  globex: {paths: [m.yaml], helpdesk_url: 'https://acme.example.com/hd'}\n"
        "  initech: {paths: [m.yaml], helpdesk_url: 'http://[::1]:8080/HelpDesk/'}\n",
        encoding="utf-8",
    )
    (tmp_path / "m.yaml").write_text(OK, encoding="utf-8")
    result = run(tmp_path, "validate", "--env", "globex")
    assert result.returncode == 1
    assert result.stderr == (
        "reconciler.yaml:4:3: environments.initech: helpdesk_url names the helpdesk of "
        "environment acme (reconciler.yaml:2:3): one environment per helpdesk\n"
        "Error: 1 problem found.\n"
    )


@pytest.mark.parametrize(
    "directory",
    ["{tmp}/afile/locks", "/proc/self/locks", "/proc/self"],
    ids=["under a regular file", "under a read-only directory", "read-only"],
)
def test_a_lock_directory_that_cannot_be_written_is_one_line(
    directory: str, sandbox: SandboxProcess, tmp_path: Path
) -> None:
    env = basic_env(sandbox, tmp_path)
    env["RECONCILER_LOCK_DIR"] = directory.format(tmp=tmp_path)
    (tmp_path / "afile").write_text("a regular file\n", encoding="utf-8")
    (tmp_path / "m.yaml").write_text(OK, encoding="utf-8")
    result = run(tmp_path, "apply", "m.yaml", "--yes", env=env)
    assert result.returncode == 1
    assert result.stderr.startswith(
        f"Error: the apply lock cannot be taken in {directory.format(tmp=tmp_path)}: "
    ), result.stderr
    assert result.stderr.endswith(
        "; set RECONCILER_LOCK_DIR to a directory that can be written\n"
    ), result.stderr
    assert len(result.stderr.splitlines()) == 1


def test_a_full_lock_directory_is_one_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """No space left for the holder's record: the lock taken so far is released."""

    def full(path: Path, url: str) -> None:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(lock, "_write_holder", full)
    with pytest.raises(lock.LockUnusable) as refused:
        lock.ApplyLock(["http://127.0.0.1:8080/helpdesk"], directory=tmp_path).__enter__()
    assert str(refused.value) == (
        f"the apply lock cannot be taken in {tmp_path}: No space left on device; set "
        "RECONCILER_LOCK_DIR to a directory that can be written"
    )
    monkeypatch.undo()
    with lock.ApplyLock(["http://127.0.0.1:8080/helpdesk"], directory=tmp_path, timeout=0):
        pass  # released: taken again at once
