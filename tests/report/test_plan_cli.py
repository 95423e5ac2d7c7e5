"""`reconciler plan` with every report, as a user runs it in CI: a real process against
the embedded sandbox, the acme example with one user's company misspelt (a located
warning) and the safety brake holding."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from xml.etree import ElementTree as ET

import pytest

pytestmark = pytest.mark.e2e
EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "acme"


def test_plan_puts_its_findings_on_the_lines_and_writes_every_report(tmp_path: Path) -> None:
    shutil.copytree(EXAMPLE, tmp_path / "acme")
    people = tmp_path / "acme" / "people.yaml"
    people.write_text(
        people.read_text(encoding="utf-8").replace("company: Acme Corp", "company: Nowhere Inc", 1),
        encoding="utf-8",
    )
    line = next(
        n for n, text in enumerate(people.read_text().splitlines(), 1) if "Nowhere Inc" in text
    )
    summary = tmp_path / "summary.md"
    summary.write_text("## an earlier step\n", encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("HELPDESK_", "WORKSPACE_"))}
    env.update(GITHUB_ACTIONS="true", GITLAB_CI="", GITHUB_STEP_SUMMARY=str(summary))
    done = subprocess.run(
        [sys.executable, "-m", "reconciler", "plan", "acme", "--sandbox", "--out", "plan.json",
         "--codequality", "quality.json", "--junit", "junit.xml"],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300,
        stdin=subprocess.DEVNULL,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    commands = [text for text in done.stderr.splitlines() if text.startswith("::")]
    assert commands[0].startswith("::error file=acme/people.yaml,line=")  # the disable's line
    assert ",title=Safety brake::apply would refuse: users: " in commands[0]
    assert commands[1].startswith(
        f"::warning file=acme/people.yaml,line={line},col=14,title=Plan warning::"
        "users[\"helen\"]: company 'Nowhere Inc' is neither live nor in the manifests"
    )
    assert len(commands) == 2

    text = summary.read_text(encoding="utf-8")
    assert text.startswith("## an earlier step\n## reconciler plan\n")  # appended
    assert "| `users` | 2 | 3 |  |  | 1 |" in text
    assert "**Safety brake holds**" in text and "The full plan: `plan.json`." in text

    quality = json.loads((tmp_path / "quality.json").read_text(encoding="utf-8"))
    assert [(q["severity"], q["location"]["path"]) for q in quality] == [
        ("minor", "acme/people.yaml"),
        ("major", "acme/people.yaml"),
    ]
    assert quality[0]["location"]["lines"]["begin"] == line
    junit = ET.parse(tmp_path / "junit.xml").getroot()
    assert junit.get("failures") == "7" and junit.get("errors") == "0"


def test_a_manifest_error_is_annotated_and_nothing_else_is_written(tmp_path: Path) -> None:
    (tmp_path / "m.yaml").write_text("users:\n  - username: a\n    colour: red\n")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("HELPDESK_", "WORKSPACE_"))}
    env.update(GITHUB_ACTIONS="true", GITHUB_STEP_SUMMARY=str(tmp_path / "summary.md"))
    done = subprocess.run(
        [sys.executable, "-m", "reconciler", "plan", "m.yaml", "--sandbox", "--html", "r.html",
         "--codequality", "q.json"],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300,
        stdin=subprocess.DEVNULL,
    )  # fmt: skip
    assert done.returncode == 1
    assert "::error file=m.yaml,line=3,col=5,title=Invalid manifest::" in done.stderr
    assert "Traceback" not in done.stderr
    assert json.loads((tmp_path / "q.json").read_text())[0]["location"]["lines"]["begin"] == 3
    assert not (tmp_path / "r.html").exists() and not (tmp_path / "summary.md").exists()
