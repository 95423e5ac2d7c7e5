"""`--env NAME` for one environment (fleet/dispatch.py), in-process, no service reached:
`--sandbox` refused beside it for each command that takes both; the listing of a project
whose description is not ASCII and whose environment names only a workspace service."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from reconciler.cli import main

PROJECT = """\
environments:
  prod:
    description: Produktion München
    paths: [base]
    helpdesk_url: http://127.0.0.1:9/helpdesk
  ws-only:
    paths: [base]
    workspace_url: http://127.0.0.1:9/workspace
"""


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "reconciler.yaml").write_text(PROJECT, encoding="utf-8")
    (tmp_path / "base").mkdir()
    (tmp_path / "base" / "c.yaml").write_text("companies:\n  - name: Acme\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    for name in ("HELPDESK_URL", "WORKSPACE_URL", "HELPDESK_TOKEN", "WORKSPACE_TOKEN"):
        monkeypatch.delenv(name, raising=False)
    return tmp_path


@pytest.mark.parametrize(
    "command", [("plan",), ("apply", "--yes"), ("export", "--out", "exported")]
)
def test_sandbox_beside_one_environment_is_refused_before_anything(
    project: Path, command: tuple[str, ...]
) -> None:
    result = CliRunner().invoke(main, [*command, "--env", "prod", "--sandbox"])
    assert result.exit_code == 1
    assert result.output == (
        "Error: --sandbox and --env contradict each other: an environment names its URLs\n"
    )
    assert sorted(p.name for p in project.iterdir()) == ["base", "reconciler.yaml"]


def test_the_listing_keeps_text_as_written_and_names_a_workspace_only_url(project: Path) -> None:
    listed = CliRunner().invoke(main, ["environments", "--format", "json"])
    assert listed.exit_code == 0, listed.output
    assert '"description": "Produktion München",' in listed.stdout
    text = CliRunner().invoke(main, ["environments"])
    assert text.stdout == (
        "prod     http://127.0.0.1:9/helpdesk  base\nws-only  http://127.0.0.1:9/workspace  base\n"
    )
