"""`export` over several environments refuses before reading anything (fleet/export.py),
in-process: without --out (naming the environments), and with an environment's directory
already holding manifests (unless --force). Nothing listens on 127.0.0.1:9, so a refusal
that came after reading would say "cannot connect" instead."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from reconciler.cli import main
from tests.cli.test_mutants_fleet_export import PROJECT

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
