"""`export --env '*' --out DIR` in-process (click's CliRunner) when no environment can be
reached (nothing listens on 127.0.0.1:9): it says how many it exports, reports each
environment's error in the project's order, names those not exported, writes nothing and
exits 1."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from reconciler.cli import main

PROJECT = """\
environments:
  acme:
    paths: [m]
    helpdesk_url: http://127.0.0.1:9/helpdesk
    credentials: {HELPDESK_TOKEN: ACME_TOKEN}
  globex:
    paths: [m]
    helpdesk_url: http://127.0.0.1:9/helpdesk
    credentials: {HELPDESK_TOKEN: GLOBEX_TOKEN}
"""
REFUSED = (
    "cannot connect to the helpdesk at 127.0.0.1:9: connection refused (ConnectError: "
    "[Errno 111] Connect call failed ('127.0.0.1', 9)); nothing accepts connections there: "
    "check the URL's host and port, and that the service is running"
)


def test_an_export_of_unreachable_environments_reports_each_and_exits_1(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "reconciler.yaml").write_text(PROJECT, encoding="utf-8")
    (tmp_path / "m").mkdir()
    (tmp_path / "m" / "c.yaml").write_text("companies:\n  - name: A\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    env = {"ACME_TOKEN": "a-token", "GLOBEX_TOKEN": "g-token", "HELPDESK_URL": None}
    args = ["export", "--env", "*", "--out", "out", "--rate-limit", "0"]
    result = CliRunner().invoke(main, args, env=env)
    assert result.exit_code == 1
    assert result.output == (
        "Exporting 2 environment(s)...\n"
        f"Error: acme: {REFUSED}\n"
        f"Error: globex: {REFUSED}\n"
        "Error: 2 of 2 environment(s) not exported: acme, globex.\n"
    )
    assert not (tmp_path / "out" / "acme").exists() and not (tmp_path / "out" / "globex").exists()
