"""The connection options every command shares (run/connect.py), each given a value other
than its default, seen where they take effect: the connection the command reads and
writes through (its rates and timeout), for a configured service and for `--sandbox`."""

from __future__ import annotations

from pathlib import Path

import pytest

from reconciler.clients.connection import RateSettings, Timeouts
from reconciler.run.connect import open_connection
from reconciler.run.flags import ConnectionFlags
from reconciler.sandbox.start import embedded

SERVICE = {"HELPDESK_URL": "https://helpdesk.example", "HELPDESK_TOKEN": "t0ken"}


def test_the_rates_and_the_timeout_reach_the_connection(
    clean_workdir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name, value in SERVICE.items():
        monkeypatch.setenv(name, value)
    with open_connection(
        ConnectionFlags(rate_limit=12, search_rate_limit=7, timeout=5.5)
    ) as connection:
        assert connection.rates == RateSettings(general=12, search=7)
        assert connection.timeouts == Timeouts(5.5)
        assert connection.helpdesk is not None and connection.workspace is None
        assert connection.environment is None


def test_the_command_lines_url_wins_over_the_environments(
    clean_workdir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name, value in SERVICE.items():
        monkeypatch.setenv(name, value)
    with open_connection(ConnectionFlags(helpdesk_url="https://other.example")) as conn:
        assert conn.helpdesk is not None
        assert conn.helpdesk.url.startswith("https://other.example")


def test_the_sandbox_keeps_the_timeout_given(clean_workdir: Path) -> None:
    with open_connection(ConnectionFlags(timeout=7.5, sandbox=embedded("acme"))) as connection:
        assert connection.timeouts == Timeouts(7.5)
        assert connection.helpdesk is not None and connection.workspace is not None
