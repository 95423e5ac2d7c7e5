"""`--annotations` and `--codequality` over several environments (docs/environments.md):
one set of annotations and one Code Quality file for the whole run, each finding naming
its environment; the same problem on a baseline line shared by every environment is one
finding per environment (distinct fingerprints); an environment's error with no manifest
line (an unreachable helpdesk) sits on its line in reconciler.yaml."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from reconciler.sandbox.process import SandboxProcess
from tests.e2e.test_fleet import EXAMPLE, TENANTS, cli, fleet  # noqa: F401 (a fixture)
from tests.e2e.test_fleet_comments import unreachable

pytestmark = pytest.mark.e2e
# A warning on a baseline line every environment loads (a list that is a set, twice).
VALID = ("acme", "initech")  # globex is made invalid: its warnings are not reached
SHARED_WARNING = (
    "companies:\n  - name: MSP\n    email_domains: [msp.example.com, msp.example.com]\n"
)


def offline(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("GITHUB_", "GITLAB_"))}
    return subprocess.run(
        [sys.executable, "-m", "reconciler", *args], cwd=cwd, capture_output=True, text=True,
        timeout=180, stdin=subprocess.DEVNULL, env={**clean, "NO_COLOR": "1"},
    )  # fmt: skip


def test_validate_names_each_environment_in_annotations_and_code_quality(tmp_path: Path) -> None:
    project = tmp_path / "fleet"
    shutil.copytree(EXAMPLE, project)
    (project / "baseline" / "msp.yaml").write_text(SHARED_WARNING, encoding="utf-8")
    client = project / "tenants" / "globex" / "client.yaml"
    client.write_text(
        client.read_text("utf-8").replace("company: Globex Ltd", "company: [no]"), "utf-8"
    )
    result = offline(project, "validate", "--env", "*", "--annotations", "github",
                     "--codequality", "cq.json")  # fmt: skip
    assert result.returncode == 1  # globex is invalid
    commands = [line for line in result.stderr.splitlines() if line.startswith("::")]
    warnings = [c for c in commands if "baseline/msp.yaml" in c]
    assert [c.split("title=")[1].split("::")[0] for c in warnings] == [
        f"{name}%3A Manifest warning" for name in VALID
    ]
    assert len({c.split("title=")[0] for c in warnings}) == 1  # one line, two environments
    (invalid,) = [c for c in commands if c.startswith("::error")]
    assert (
        "file=tenants/globex/client.yaml,line=" in invalid
        and "title=globex%3A Invalid manifest" in invalid
    )
    entries = json.loads((project / "cq.json").read_text("utf-8"))
    shared = [e for e in entries if e["location"]["path"] == "baseline/msp.yaml"]
    assert [e["description"].split(":")[0] for e in shared] == list(VALID)
    assert len({e["fingerprint"] for e in shared}) == 2
    assert len({e["fingerprint"] for e in entries}) == len(entries)
    again = offline(project, "validate", "--env", "*", "--codequality", "cq2.json")
    assert again.returncode == 1
    # Stable from run to run: GitLab matches findings across pipelines by fingerprint.
    assert json.loads((project / "cq2.json").read_text("utf-8")) == entries


def test_an_unreachable_environment_is_annotated_on_its_line_of_the_project_file(
    fleet: tuple[Path, SandboxProcess],  # noqa: F811
) -> None:
    project, sandbox = fleet
    closed = unreachable(project, sandbox, "initech")
    line = (
        project.joinpath("reconciler.yaml").read_text("utf-8").splitlines().index("  initech:") + 1
    )
    result = cli(project, sandbox, "plan", "--env", "*", "--annotations", "github",
                 "--codequality", "cq.json")  # fmt: skip
    assert result.returncode == 1
    (failed,) = [c for c in result.stderr.splitlines() if c.startswith("::error")]
    assert failed.startswith(
        f"::error file=reconciler.yaml,line={line},col=3,title=initech%3A reconciler failed::"
    )
    assert f"127.0.0.1:{closed}" in failed
    (entry,) = [
        e for e in json.loads((project / "cq.json").read_text("utf-8")) if e["severity"] == "major"
    ]
    assert entry["location"] == {"path": "reconciler.yaml", "lines": {"begin": line}}
    assert entry["description"].startswith("initech: reconciler failed: ")
