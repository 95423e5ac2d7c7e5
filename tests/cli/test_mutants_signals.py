"""A command turns SIGTERM into Ctrl-C for its own life only: a program that runs the CLI
in-process (click's CliRunner, a wrapper script) gets its own SIGTERM handler back."""

from __future__ import annotations

import signal
from pathlib import Path
from types import FrameType

import pytest
from click.testing import CliRunner

from reconciler.cli import main


def test_the_sigterm_handler_is_given_back_after_a_command(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "c.yaml").write_text("companies:\n  - name: Acme\n")
    monkeypatch.chdir(tmp_path)

    def ours(signum: int, frame: FrameType | None) -> None:
        """The embedding program's own handler."""

    previous = signal.signal(signal.SIGTERM, ours)
    try:
        # A plan against a service that is not there (nothing listens on port 9): it
        # reads under the command's handler, fails, and ends.
        env = {"HELPDESK_URL": "http://127.0.0.1:9/helpdesk", "HELPDESK_TOKEN": "t0ken"}
        result = CliRunner().invoke(main, ["plan", "c.yaml", "--rate-limit", "0"], env=env)
        assert result.exit_code == 1, result.output
        assert "127.0.0.1:9" in result.output
        assert signal.getsignal(signal.SIGTERM) is ours
    finally:
        signal.signal(signal.SIGTERM, previous)
