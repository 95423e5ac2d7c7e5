"""One apply at a time per helpdesk, whatever its spelling: the apply lock is keyed on the
normalised service address (loopback names as one, default ports dropped, lower-case
host, the helpdesk's path compared ignoring case). Rows as tests/hardening/table.py runs
them."""

# ruff: noqa: E501  (a row is one line, whatever its length: adding a case is adding a line)

from __future__ import annotations

from pathlib import Path

import pytest

from reconciler.clients.urls import service_address
from reconciler.sandbox.process import SandboxProcess
from tests.hardening.table import Row, check_rows, run_row

ROWS = [
    Row("apply lock under another spelling of the helpdesk", "apply m.yaml --yes", 1, "another apply is running for http://localhost:", setup="lock_held", env={"HELPDESK_URL": "http://LOCALHOST:{port}/HelpDesk/"}),
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
    ],
)
def test_the_lock_address_of_each_spelling(spelling: str, service: str, address: str) -> None:
    assert service_address(spelling, service) == address
