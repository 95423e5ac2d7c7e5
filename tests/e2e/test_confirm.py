"""The confirmation on a terminal (a pseudo-terminal here): it names the services that
will change and what it costs, and ends with the prompt a user types at, as Terraform's
does (`  Enter a value: `); only `yes` approves; `y` changes nothing."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.e2e.conftest import Serve
from tests.e2e.test_apply_cli import CONNECTION, NO_RATE_LIMIT, SEEDS, Sandbox

pytestmark = pytest.mark.e2e


def apply_on_a_terminal(cwd: Path, sandbox: Sandbox, answer: str) -> tuple[int, str]:
    master, slave = os.openpty()
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("HELPDESK_", "WORKSPACE_"))}
    connection = {name: sandbox.process.env[name] for name in CONNECTION}
    try:
        process = subprocess.Popen(
            [sys.executable, "-m", "reconciler", "apply", "manifests", *NO_RATE_LIMIT],
            cwd=cwd,
            env={**clean, **connection},
            stdin=slave,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        os.write(master, answer.encode() + b"\n")
        _, stderr = process.communicate(timeout=120)
    finally:
        os.close(master)
        os.close(slave)
    return process.returncode, stderr


def test_only_yes_approves_and_the_question_names_the_services_then_prompts(
    serve: Serve, tmp_path: Path
) -> None:
    process = serve(tmp_path / "s.db", "--seed", str(SEEDS / "empty.yaml"), *NO_RATE_LIMIT)
    sandbox = Sandbox(process)
    (tmp_path / "manifests").mkdir()
    (tmp_path / "manifests" / "c.yaml").write_text(
        "companies:\n  - name: Asked Co\n    notes: asked first\n  - name: Other Co\n"
    )
    status, stderr = apply_on_a_terminal(tmp_path, sandbox, "y")
    assert status == 1, stderr
    assert "Do you want to apply these 2 changes (2 to create)?" in stderr
    assert f"helpdesk   {process.helpdesk_url}  (3 write call(s))" in stderr
    assert f"workspace  {process.workspace_url}  (0 write call(s))" in stderr
    assert "3 API calls; no rate limit applies." in stderr
    question = stderr.index("Only 'yes' will be accepted to approve.")
    assert "\n  Enter a value: " in stderr[question:]  # the prompt a user types at
    assert "Apply cancelled." in stderr and "Error" not in stderr
    assert sandbox.writes() == []

    status, stderr = apply_on_a_terminal(tmp_path, sandbox, "yes")
    assert status == 0, stderr
    assert "Apply complete: 2 change(s)" in stderr
    assert len(sandbox.writes()) == 3
    sandbox.close()
