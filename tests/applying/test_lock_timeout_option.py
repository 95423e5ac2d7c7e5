"""`apply --lock-timeout`: from 0 (refuse at once) to a day; anything else is refused
before anything is read, naming the range, and `--help` says what it waits for."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from reconciler.cli import main
from tests.applying.inprocess import EXAMPLE


@pytest.mark.parametrize("seconds", ["86401", "-1", "soon"])
def test_a_lock_timeout_outside_a_day_is_refused(seconds: str) -> None:
    result = CliRunner().invoke(main, ["apply", str(EXAMPLE), "--lock-timeout", seconds])
    assert result.exit_code == 1  # a usage error, before anything is read
    assert "--lock-timeout" in result.output
    if seconds != "soon":
        assert "0<=x<=86400" in result.output


def test_the_help_says_what_the_lock_timeout_waits_for() -> None:
    result = CliRunner().invoke(main, ["apply", "--help"], terminal_width=200)
    assert result.exit_code == 0
    assert "--lock-timeout SECONDS" in result.output
    assert "Wait this long for another apply to the same services to end" in result.output
