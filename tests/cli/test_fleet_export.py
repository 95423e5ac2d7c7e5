"""`export` over several environments (cli/fleet_export.py), in-process, when no environment
can be reached (nothing listens on 127.0.0.1:9): without --out it is refused (naming the
environments), and so is an environment's directory already holding manifests (unless
--force), both before anything is read (a refusal that came after reading would say
"cannot connect" instead); with --out it says how many it exports, reports each
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
    "All connection attempts failed); nothing accepts connections there: "
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


ENV = {"ACME_TOKEN": "a-token", "GLOBEX_TOKEN": "g-token", "HELPDESK_URL": None}


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "reconciler.yaml").write_text(PROJECT, encoding="utf-8")
    (tmp_path / "m").mkdir()
    (tmp_path / "m" / "c.yaml").write_text("companies:\n  - name: A\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def export(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, ["export", "--env", "*", "--rate-limit", "0", *args], env=ENV)
    return result.exit_code, result.output


def test_several_environments_need_out(project: Path) -> None:
    assert export() == (
        1,
        "Error: export over several environments (acme, globex) needs --out DIR: each "
        "environment is written to DIR/NAME (or give one --env NAME to export to stdout)\n",
    )


def test_an_environments_directory_holding_manifests_is_refused_first(project: Path) -> None:
    (project / "out" / "globex").mkdir(parents=True)
    (project / "out" / "globex" / "old.yaml").write_text("companies: []\n", encoding="utf-8")
    code, said = export("--out", "out")
    assert code == 1
    assert said.startswith(
        "Error: --out out/globex already holds manifests (old.yaml), which `plan` would read"
    )
    assert "Exporting" not in said
    # With --force it goes on to read (and here finds nothing listening).
    code, said = export("--out", "out", "--force")
    assert code == 1 and said.startswith("Exporting 2 environment(s)...\n")
