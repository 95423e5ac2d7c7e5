"""The credential variables, in-process (the bad-input table checks the same through a
child process): a value that cannot travel in a header or in Basic authentication is
named, never shown, before any call; a manifest may not read a credential variable, the
password included, and its value never appears."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from reconciler.cli import main

SECRET = "s3cret-Value-42"
BASE = {"HELPDESK_URL": "http://127.0.0.1:9/helpdesk", "NO_COLOR": "1"}


@pytest.fixture(autouse=True)
def _manifests(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    for name in ("HELPDESK_TOKEN", "HELPDESK_USERNAME", "HELPDESK_PASSWORD", "WORKSPACE_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    (tmp_path / "ok.yaml").write_text("companies:\n  - name: Acme\n")
    (tmp_path / "reads.yaml").write_text("companies:\n  - name: '${HELPDESK_PASSWORD}'\n")


@pytest.mark.parametrize(
    ("username", "message"),
    [
        ("a:b", "HELPDESK_USERNAME holds ':', which Basic authentication cannot carry"),
        ("ab\x07c", "HELPDESK_USERNAME holds a control character (at position 3)"),
    ],
)
def test_a_username_basic_authentication_cannot_carry_is_named(username: str, message: str) -> None:
    env = {**BASE, "HELPDESK_USERNAME": username, "HELPDESK_PASSWORD": SECRET}
    result = CliRunner().invoke(main, ["plan", "ok.yaml"], env=env)
    assert result.exit_code == 1
    assert message in result.output
    assert "127.0.0.1:9" not in result.output  # refused before any call


def test_a_manifest_may_not_read_the_password() -> None:
    env = {**BASE, "HELPDESK_USERNAME": "agent", "HELPDESK_PASSWORD": SECRET}
    result = CliRunner().invoke(main, ["validate", "reads.yaml"], env=env)
    assert result.exit_code == 1
    assert "'${HELPDESK_PASSWORD}' refers to a credential" in result.output
    assert SECRET not in result.output
