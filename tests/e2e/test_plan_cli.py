"""`reconciler plan` and `validate` as a user runs them: a real process, in a fresh
directory, against the embedded sandbox (`--sandbox`, seeded from the acme tenant)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.e2e
EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "acme"


def run(
    cwd: Path, *args: str, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("HELPDESK_", "WORKSPACE_"))}
    return subprocess.run(
        [sys.executable, "-m", "reconciler", *args],
        cwd=cwd,
        env={**clean, **(env or {})},
        capture_output=True,
        text=True,
        timeout=120,
        stdin=subprocess.DEVNULL,
    )


@pytest.fixture
def workdir(tmp_path: Path) -> Path:
    shutil.copytree(EXAMPLE, tmp_path / "acme")
    return tmp_path


def test_quick_start_plan_in_three_formats(workdir: Path) -> None:
    text = run(workdir, "plan", "acme", "--sandbox", "--detailed-exitcode")
    assert text.returncode == 2, text.stderr
    assert "Plan: 8 to create, 10 to update, 0 to delete, 0 to enable, 2 to disable." in text.stdout
    assert '~ automation_rules["102"] (disable)' in text.stdout
    assert "\x1b[" not in text.stdout  # no colour off a terminal
    assert (workdir / ".reconciler" / "sandbox.db").is_file()

    as_json = run(workdir, "plan", "acme", "--sandbox", "--format", "json", "--out", "plan.json")
    assert as_json.returncode == 0, as_json.stderr
    data = json.loads(as_json.stdout)
    assert data["format_version"] == 1 and data["summary"]["create"] == 8
    assert data["live_digest"].startswith("sha256:")
    saved = json.loads((workdir / "plan.json").read_text())
    assert saved.pop("made_from")["manifests_digest"].startswith("sha256:")
    assert saved == data  # the saved plan is the printed one, with what it was made from

    markdown = run(workdir, "plan", "acme", "--sandbox", "--format", "markdown")
    assert markdown.returncode == 0
    assert "| **total** | **8** |" in markdown.stdout and "<details>" in markdown.stdout


def test_target_and_exclude(workdir: Path) -> None:
    only = run(
        workdir, "plan", "acme", "--sandbox", "--format", "json", "--target", "automation_rules"
    )
    changes = json.loads(only.stdout)["changes"]
    assert [c["address"] for c in changes] == ['automation_rules["102"]']
    left = run(workdir, "plan", "acme", "--sandbox", "--format", "json", "--exclude", "assets")
    assert all(c["kind"] != "assets" for c in json.loads(left.stdout)["changes"])
    bad = run(workdir, "plan", "acme", "--sandbox", "--target", "widgets")
    assert bad.returncode == 1 and "unknown kind 'widgets'" in bad.stderr


def test_validate_and_schema(workdir: Path) -> None:
    ok = run(workdir, "validate", "acme")
    assert ok.returncode == 0 and "Valid:" in ok.stderr
    (workdir / "broken.yaml").write_text("companies:\n  - name: Acme\n    colour: red\n")
    bad = run(workdir, "validate", "acme", "broken.yaml")
    assert bad.returncode == 1
    assert "broken.yaml:3:5:" in bad.stderr and "Traceback" not in bad.stderr
    schema = run(workdir, "schema")
    assert json.loads(schema.stdout)["title"]


def test_plan_without_any_service_is_a_usage_error(workdir: Path) -> None:
    result = run(workdir, "plan", "acme")
    assert result.returncode == 1
    assert "no service configured" in result.stderr and "Traceback" not in result.stderr


def test_wrong_credentials_fail_cleanly(workdir: Path) -> None:
    from reconciler.sandbox.process import SandboxProcess

    with SandboxProcess(workdir / "s.db") as sandbox:
        env = {
            "HELPDESK_URL": sandbox.helpdesk_url,
            "HELPDESK_USERNAME": "admin",
            "HELPDESK_PASSWORD": "wrong",
        }
        # The workspace is not configured: its kind is left out explicitly (else an error).
        result = run(workdir, "plan", "acme", "--exclude", "workspace.employees", env=env)
        assert result.returncode == 1
        assert (
            "401" in result.stderr
            and "Traceback" not in result.stderr
            and "wrong" not in result.stderr
        )
        import httpx

        log = httpx.get(f"{sandbox.url}/_sandbox/requests").json()
        assert [(r["path"], r["status"]) for r in log] == [("/helpdesk/api/Authorization", 401)]
