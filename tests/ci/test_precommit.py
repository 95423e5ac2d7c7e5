"""`.pre-commit-hooks.yaml`: the `reconciler-validate` hook, run as pre-commit runs it
(its entry, then its args, no file names) in a repository whose manifests are at the
hook's default path."""

from __future__ import annotations

import re
import shlex
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.ci.recipes import ROOT, base_env, load_yaml

HOOKS = ROOT / ".pre-commit-hooks.yaml"


def the_hook() -> dict[str, Any]:
    hooks = load_yaml(HOOKS)
    [hook] = [h for h in hooks if h["id"] == "reconciler-validate"]
    return dict(hook)


def run_hook(
    repo: Path, hook: dict[str, Any], filenames: list[str]
) -> subprocess.CompletedProcess[str]:
    # pre-commit runs `entry + args`, then the staged files' names if pass_filenames.
    command = [*shlex.split(hook["entry"]), *hook.get("args", [])]
    if hook.get("pass_filenames", True):
        command += filenames
    env = base_env()
    executable = shutil.which(command[0], path=env["PATH"])
    assert executable is not None, f"{command[0]} is not installed"
    return subprocess.run(
        [executable, *command[1:]],
        cwd=repo,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        stdin=subprocess.DEVNULL,
    )


def test_the_hook_is_declared_for_a_python_install() -> None:
    hook = the_hook()
    assert hook["entry"] == "reconciler validate"
    assert hook["language"] == "python"  # pre-commit pip-installs this repository
    assert hook["pass_filenames"] is False and hook["args"] == ["manifests"]
    files = re.compile(hook["files"])
    assert files.search("manifests/users.yaml") and files.search("a/b.yml")
    assert not files.search("schemas/manifest.schema.json") and not files.search("x.yaml.bak")


def test_the_hook_passes_on_valid_manifests(repo: Path) -> None:
    result = run_hook(repo, the_hook(), ["manifests/companies.yaml"])
    assert result.returncode == 0, result.stderr
    assert "Valid:" in result.stderr


@pytest.mark.parametrize(
    ("name", "text", "where"),
    [
        ("broken.yaml", "companies:\n  - name: Initech\n    colour: red\n", ":3:5:"),
        ("syntax.yml", "users: [\n", ":"),
        # Valid alone, wrong with the others: why the hook checks the whole directory.
        ("again.yaml", "companies:\n  - name: Acme Corp\n", ":2:"),
    ],
)
def test_the_hook_fails_on_a_broken_manifest(repo: Path, name: str, text: str, where: str) -> None:
    (repo / "manifests" / name).write_text(text, encoding="utf-8")
    result = run_hook(repo, the_hook(), [f"manifests/{name}"])
    assert result.returncode == 1
    assert f"manifests/{name}{where}" in result.stderr
    assert "Traceback" not in result.stderr
