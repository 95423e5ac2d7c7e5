"""A bug in reconciler (an exception no error type of it names) ends the command with one
line that says so and how to see more, exit 1, no traceback; with RECONCILER_DEBUG set,
the exception itself comes through (its traceback is what the bug report needs)."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from reconciler.cli import main


@pytest.fixture
def buggy(monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(*args: object, **kwargs: object) -> None:
        raise RuntimeError("boom")

    monkeypatch.setattr("reconciler.manifest.schema_text", broken)


@pytest.mark.usefixtures("buggy")
def test_a_bug_is_one_line_and_exit_1() -> None:
    result = CliRunner().invoke(main, ["schema"], env={"RECONCILER_DEBUG": ""})
    assert result.exit_code == 1
    assert result.output == (
        "Error: internal error (RuntimeError: boom); this is a bug in reconciler: please "
        "report it (RECONCILER_DEBUG=1 shows the traceback)\n"
    )


@pytest.mark.usefixtures("buggy")
def test_reconciler_debug_lets_the_exception_through() -> None:
    result = CliRunner().invoke(main, ["schema"], env={"RECONCILER_DEBUG": "1"})
    assert isinstance(result.exception, RuntimeError)
    assert str(result.exception) == "boom"
    assert "internal error" not in result.output
