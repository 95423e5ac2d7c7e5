"""`.pre-commit-hooks.yaml`: the `reconciler-validate` hook, run as pre-commit runs it
(its entry, then its args, then the file names unless `pass_filenames: false`): with its
own defaults on manifests wherever they are (what `pre-commit try-repo` does), and with
the configuration its comment and docs/workflows.md show (the directory as one set)."""

from __future__ import annotations

import re
import shlex
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from ruamel.yaml import YAML

from reconciler import __version__
from tests.ci.recipes import EXAMPLE, ROOT, base_env, load_yaml

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


def example_configuration() -> dict[str, Any]:
    """The hook as the comment in .pre-commit-hooks.yaml configures it (the same as
    docs/workflows.md shows): the hook's definition, overridden by the configuration."""
    comment = "\n".join(
        line.removeprefix("#")
        for line in HOOKS.read_text(encoding="utf-8").splitlines()
        if line.startswith("#   ")
    )
    [repo] = YAML(typ="safe").load(comment)
    [configured] = repo["hooks"]
    assert repo["rev"] == f"v{__version__}"  # a release tag
    return {**the_hook(), **configured}


def test_the_hook_is_declared_for_a_python_install() -> None:
    hook = the_hook()
    assert hook["entry"] == "reconciler validate"
    assert hook["language"] == "python"  # pre-commit pip-installs this repository
    # No layout of its own: no path in its arguments; it takes the files it is given, in
    # one run, so that they are merged as one set.
    assert "args" not in hook and hook.get("pass_filenames", True) is True
    assert hook["require_serial"] is True
    files = re.compile(hook["files"])
    assert files.search("manifests/users.yaml") and files.search("a/b.yml")
    assert not files.search("schemas/manifest.schema.json") and not files.search("x.yaml.bak")


def test_the_workflows_doc_shows_the_same_configuration() -> None:
    doc = (ROOT / "docs" / "workflows.md").read_text(encoding="utf-8")
    block = doc.split("### The pre-commit hook", 1)[1].split("```yaml\n", 1)[1].split("```")[0]
    [repo] = YAML(typ="safe").load(block)["repos"]
    configured = {**the_hook(), **repo["hooks"][0]}
    assert configured == example_configuration()


def test_the_hooks_defaults_validate_manifests_in_any_layout(tmp_path: Path) -> None:
    # What `pre-commit try-repo ... --files config/helpdesk/*.yaml` runs.
    where = tmp_path / "config" / "helpdesk"
    shutil.copytree(EXAMPLE, where)
    files = sorted(str(p.relative_to(tmp_path)) for p in where.glob("*.yaml"))
    result = run_hook(tmp_path, the_hook(), files)
    assert result.returncode == 0, result.stderr
    assert result.stderr.startswith("Valid: 65 objects in 7 file(s).")
    # ... and as one set: a key defined in two of them is an error.
    (where / "again.yaml").write_text("companies:\n  - name: Acme Corp\n", encoding="utf-8")
    result = run_hook(tmp_path, the_hook(), [*files, "config/helpdesk/again.yaml"])
    assert result.returncode == 1
    assert "config/helpdesk/again.yaml:2:" in result.stderr


def test_the_hook_passes_on_valid_manifests(repo: Path) -> None:
    result = run_hook(repo, example_configuration(), ["manifests/companies.yaml"])
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
    result = run_hook(repo, example_configuration(), [f"manifests/{name}"])
    assert result.returncode == 1
    assert f"manifests/{name}{where}" in result.stderr
    assert "Traceback" not in result.stderr
