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
    # A new company whose name only looks like another's (a Cyrillic o, U+043E): a warning.
    companies = tmp_path / "acme" / "companies.yaml"
    with companies.open("a", encoding="utf-8") as manifest:
        manifest.write("  - name: Acme R\u043ebotics\n")
    line = len(companies.read_text(encoding="utf-8").splitlines())
    # A fourth user of eleven changes: over the brake's 30 %.
    people = tmp_path / "acme" / "people.yaml"
    text = people.read_text(encoding="utf-8")
    people.write_text(text.replace("company: Acme Corp", "company: Acme Robotics", 1), "utf-8")
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
    assert ",title=Safety brake::apply would refuse: users: 4 of 11 " in commands[0]
    look_alike = f"::warning file=acme/companies.yaml,line={line},col=5,title="
    assert commands[1].startswith(look_alike + "Manifest warning::companies 'Acme R\u043ebotics'")
    assert commands[2].startswith(look_alike + 'Plan warning::companies["Acme R\u043ebotics"]')
    assert len(commands) == 3

    text = summary.read_text(encoding="utf-8")
    assert text.startswith("## an earlier step\n## reconciler plan\n")  # appended
    assert "| `users` | 2 | 3 |  |  | 1 |" in text
    assert "**Safety brake holds**" in text and "The full plan: `plan.json`." in text

    quality = json.loads((tmp_path / "quality.json").read_text(encoding="utf-8"))
    assert [(q["severity"], q["location"]["path"]) for q in quality] == [
        ("minor", "acme/companies.yaml"),
        ("minor", "acme/companies.yaml"),
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
