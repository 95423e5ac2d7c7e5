"""What a server says reaches the terminal and the job log only as visible text: its
control characters (an escape sequence, a carriage return, a C1 control) are dropped, and
under GitHub Actions none of its lines runs as a workflow command."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from reconciler.errors import ApiError, TransportFailure, visible
from tests.e2e.test_plan_cli import run
from tests.hardening.servers import answering_server

HOSTILE = (
    "bad \x1b[31mred\x1b[0m\x07 \x9b2J\x7f over\rwritten\n"
    "::add-mask::hunter2\n  ::stop-commands::tok\nsee ##[error]here"
)


def test_a_server_error_text_is_printed_visible_and_inert(tmp_path: Path) -> None:
    (tmp_path / "m.yaml").write_text("companies: [{name: Acme}]\n", encoding="utf-8")
    with answering_server(HOSTILE, status=400) as server:
        result = run(
            tmp_path, "plan", "m.yaml",
            env={"HELPDESK_URL": server.url, "HELPDESK_TOKEN": "a-token-of-the-test",
                 "GITHUB_ACTIONS": "true", "NO_PROXY": "127.0.0.1", "NO_COLOR": "1"},
        )  # fmt: skip
    assert result.returncode == 1, result.stderr
    assert "400 bad [31mred[0m 2J overwritten" in result.stderr
    assert not re.search("[\x00-\x08\x0b-\x1f\x7f-\x9f]", result.stdout + result.stderr)
    executed = [
        line
        for line in re.split(r"\r\n|\r|\n", result.stderr)
        if line.strip().startswith("::") or "##[" in line
    ]
    # Only the annotation of the error, written on purpose, its text's line ends escaped.
    assert len(executed) == 1, executed
    assert executed[0].startswith("::error title=reconciler failed::GET /api/Companies failed")
    assert "overwritten%0A::add-mask::hunter2%0A  ::stop-commands::tok%0Asee" in executed[0]


@pytest.mark.parametrize(
    ("said", "shown"),
    [
        ("\x1b]8;;http://evil\x1b\\link\x1b]8;;\x1b\\", "]8;;http://evil\\link]8;;\\"),
        ("tab\tand\nline", "tab\tand\nline"),
        ("\x00nul \x85next-line \x9dosc", "nul next-line osc"),
        ("plain text, unchanged", "plain text, unchanged"),
    ],
)
def test_control_characters_are_dropped_from_every_error(said: str, shown: str) -> None:
    assert visible(said) == shown
    error = ApiError(500, "GET", "/api/Company\x1b[2J", said)
    assert error.message == shown.strip()
    assert str(error) == f"GET /api/Company[2J failed: 500 {shown.strip()}"
    assert str(TransportFailure(f"GET /x: {said}")) == f"GET /x: {shown}"
