"""A project file's credentials stay out of the manifests: a manifest value may not read a
variable that any environment of reconciler.yaml names under `credentials:` (it would
write the real token into the helpdesk while the plan shows `***`), and an environment's
var files are read only from inside the repository. Both are refused by `validate` and
`plan` with the file, line and field, before any call."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

PROJECT = """\
environments:
  acme:
    paths: [manifests]
    helpdesk_url: http://127.0.0.1:9/helpdesk
    credentials: {HELPDESK_TOKEN: SVC_TOK}
  globex:
    paths: [manifests]
    helpdesk_url: http://127.0.0.1:9/other
    credentials: {HELPDESK_TOKEN: GLOBEX_PASS}
"""


def reconciler(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("HELPDESK_", "WORKSPACE_"))}
    env.update(SVC_TOK="the-real-admin-token", GLOBEX_PASS="another-token", NO_COLOR="1")
    return subprocess.run(
        [sys.executable, "-m", "reconciler", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "reconciler.yaml").write_text(PROJECT)
    (tmp_path / "manifests").mkdir()
    return tmp_path


@pytest.mark.parametrize("variable", ["SVC_TOK", "GLOBEX_PASS"])
@pytest.mark.parametrize("command", ["validate", "plan"])
def test_a_manifest_value_naming_any_environments_credential_is_refused(
    project: Path, variable: str, command: str
) -> None:
    (project / "manifests" / "c.yaml").write_text(
        f'companies:\n  - name: Acme\n    notes: "${{{variable}}}"\n'
    )
    done = reconciler(project, command, "--env", "acme")
    assert done.returncode == 1
    assert "c.yaml:3:" in done.stderr and "companies[0].notes" in done.stderr
    assert variable in done.stderr
    assert "the-real-admin-token" not in done.stdout + done.stderr
    assert "another-token" not in done.stdout + done.stderr


def test_a_manifest_value_naming_another_variable_is_read(project: Path) -> None:
    (project / "manifests" / "c.yaml").write_text(
        'companies:\n  - name: Acme\n    notes: "${SOME_TEXT}"\n'
    )
    env_before = os.environ.get("SOME_TEXT")
    os.environ["SOME_TEXT"] = "plain words"
    try:
        done = reconciler(project, "validate", "--env", "acme")
    finally:
        if env_before is None:
            del os.environ["SOME_TEXT"]
        else:
            os.environ["SOME_TEXT"] = env_before
    assert (done.returncode, done.stderr.strip().splitlines()[-1]) == (
        0,
        "Valid: 1 objects in 1 file(s).",
    ), done.stderr


def test_a_var_file_outside_the_repository_is_not_read(project: Path, tmp_path: Path) -> None:
    outside = tmp_path.parent / f"{tmp_path.name}-outside.yaml"
    outside.write_text("NAME: Acme\n")
    (project / "reconciler.yaml").write_text(
        PROJECT.replace("paths: [manifests]\n    helpdesk_url: http://127.0.0.1:9/helpdesk",
                        f"paths: [manifests]\n    var_files: [{outside}]\n"
                        "    helpdesk_url: http://127.0.0.1:9/helpdesk", 1)
    )  # fmt: skip
    (project / "manifests" / "c.yaml").write_text("companies:\n  - name: ${NAME}\n")
    done = reconciler(project, "validate", "--env", "acme")
    assert done.returncode == 1
    assert "the variables file is outside the repository" in done.stderr
