"""The question on a terminal ends with the prompt a user types at, as Terraform's does:
`  Enter a value: ` (an answer other than `yes` changes nothing)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.e2e.conftest import Serve
from tests.e2e.test_apply_cli import NO_RATE_LIMIT, SEEDS, Sandbox
from tests.e2e.test_confirm import apply_on_a_terminal

pytestmark = pytest.mark.e2e


def test_the_question_ends_with_the_prompt(serve: Serve, tmp_path: Path) -> None:
    process = serve(tmp_path / "s.db", "--seed", str(SEEDS / "empty.yaml"), *NO_RATE_LIMIT)
    sandbox = Sandbox(process)
    (tmp_path / "manifests").mkdir()
    (tmp_path / "manifests" / "c.yaml").write_text("companies:\n  - name: Asked Co\n")
    status, stderr = apply_on_a_terminal(tmp_path, sandbox, "no")
    assert status == 1, stderr
    question = stderr.index("Only 'yes' will be accepted to approve.")
    assert "\n  Enter a value: " in stderr[question:]
    assert sandbox.writes() == []
    sandbox.close()
