"""What a user of a project file (reconciler.yaml) sees from the commands that take
`--env`, run as they run them (the CLI in a child process, no service reached): the line
naming the environment and its services, the verdict of each environment of a fleet
validate, and which environments `--affected-by -` picks from the names on stdin."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

PROJECT = """\
environments:
  prod:
    paths: [good]
    helpdesk_url: http://127.0.0.1:9/helpdesk
    workspace_url: http://127.0.0.1:9/workspace
  bad:
    paths: [broken]
"""


def reconciler(cwd: Path, *args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("HELPDESK_", "WORKSPACE_"))}
    return subprocess.run(
        [sys.executable, "-m", "reconciler", *args],
        cwd=cwd,
        env={**env, "NO_COLOR": "1"},
        input=stdin,
        capture_output=True,
        text=True,
        timeout=120,
    )


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "reconciler.yaml").write_text(PROJECT)
    (tmp_path / "good").mkdir()
    (tmp_path / "good" / "c.yaml").write_text("companies:\n  - name: Acme\n")
    (tmp_path / "broken").mkdir()
    (tmp_path / "broken" / "c.yaml").write_text("companies:\n  - nam: Acme\n")
    return tmp_path


def test_one_environment_is_named_with_its_services(project: Path) -> None:
    done = reconciler(project, "validate", "--env", "prod")
    assert done.returncode == 0, done.stderr
    assert (
        "Environment: prod (helpdesk http://127.0.0.1:9/helpdesk, "
        "workspace http://127.0.0.1:9/workspace)\n"
    ) in done.stderr


def test_a_fleet_validate_gives_each_environment_its_verdict_and_exits_1(project: Path) -> None:
    done = reconciler(project, "validate", "--env", "*")
    assert done.returncode == 1, done.stderr
    assert "prod: valid: 1 objects in 1 file(s).\n" in done.stderr
    assert (
        "bad: invalid:\n  broken/c.yaml:2:5: companies[0]: missing required field 'name'\n"
    ) in done.stderr
    assert done.stderr.endswith("Error: 1 of 2 environment(s) invalid.\n")


def test_affected_by_dash_reads_the_names_from_stdin_and_is_no_name_itself(
    tmp_path: Path,
) -> None:
    # An environment of the whole folder: any file in it, `-` too, would affect it.
    (tmp_path / "reconciler.yaml").write_text("environments:\n  all:\n    paths: [.]\n")
    listed = ("environments", "--format", "json", "--affected-by", "-")
    for stdin, names in (("", []), ("c.yaml\n", ["all"]), ("\n  c.yaml  \n", ["all"])):
        done = reconciler(tmp_path, *listed, stdin=stdin)
        assert done.returncode == 0, done.stderr
        assert [row["name"] for row in json.loads(done.stdout)] == names, stdin
