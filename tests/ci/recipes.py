"""Reading the CI recipes of `examples/ci/` and running their shell steps the way the CI
services do: GitHub Actions runs a step's `run:` with `bash --noprofile --norc -eo pipefail`
(`shell: bash`) and the workflow's, job's and step's `env:` with every `${{ ... }}`
expression replaced first; GitLab runs a job's `script:` entries as one script."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ruamel.yaml import YAML

ROOT = Path(__file__).resolve().parents[2]
CI = ROOT / "examples" / "ci"
GITHUB = CI / "github"
GITLAB_CI = CI / "gitlab" / ".gitlab-ci.yml"
EXAMPLE = ROOT / "examples" / "acme"
ACME_SEED = ROOT / "reconciler" / "sandbox" / "seeds" / "acme.yaml"
EMPTY_SEED = ROOT / "reconciler" / "sandbox" / "seeds" / "empty.yaml"
# GitHub Actions' `shell: bash`.
GITHUB_BASH = ["bash", "--noprofile", "--norc", "-eo", "pipefail"]

_EXPRESSION = re.compile(r"\$\{\{\s*(.*?)\s*\}\}")


def load_yaml(path: Path) -> Any:
    # YAML 1.2, as both services read it: `on:` stays the string "on".
    return YAML(typ="safe").load(path.read_text(encoding="utf-8"))


def workflow_files() -> list[Path]:
    return sorted(GITHUB.glob("*.yml"))


@dataclass(frozen=True)
class Step:
    """One `run:` step of a workflow job, with the environment GitHub gives it."""

    name: str
    run: str
    env: dict[str, str]


def github_step(workflow: Path, job: str, name: str, values: Mapping[str, str]) -> Step:
    """The step called `name` of `job`, its `env` (workflow, then job, then step) with every
    expression replaced from `values` (an expression `values` lacks is an error, so that a
    new expression in a workflow is noticed by its test)."""
    data = load_yaml(workflow)
    job_data = data["jobs"][job]
    env: dict[str, str] = {}
    for scope in (data, job_data):
        env.update({k: str(v) for k, v in (scope.get("env") or {}).items()})
    for step in job_data["steps"]:
        if step.get("name") == name:
            env.update({k: str(v) for k, v in (step.get("env") or {}).items()})
            expanded = {k: expand(v, values) for k, v in env.items()}
            return Step(name, step["run"], expanded)
    raise KeyError(f"{workflow.name}: job {job} has no step {name!r}")


def expand(text: str, values: Mapping[str, str]) -> str:
    def one(match: re.Match[str]) -> str:
        expression = match.group(1)
        if expression.startswith("secrets."):
            # An unset secret is the empty string in GitHub Actions.
            return values.get(expression, "")
        if expression not in values:
            raise KeyError(f"the test gives no value for the expression {expression!r}")
        return values[expression]

    return _EXPRESSION.sub(one, text)


def run_scripts(workflow: Any) -> list[tuple[str, str]]:
    """Every `run:` script of a GitHub workflow, as (job/step, script)."""
    found = []
    for job_name, job in workflow["jobs"].items():
        for index, step in enumerate(job.get("steps", [])):
            if "run" in step:
                found.append((f"{job_name}/{step.get('name', index)}", step["run"]))
    return found


def gitlab_script(config: Any, job: str, part: str = "script") -> str:
    """A GitLab job's `script` (or `before_script`, `after_script`) as the one script the
    runner makes of its entries."""
    entries = config[job].get(part) or []
    return "\n".join(entries) + "\n"


def gitlab_jobs(config: Any) -> list[str]:
    return [name for name, value in config.items() if isinstance(value, dict) and "script" in value]


def base_env(**extra: str) -> dict[str, str]:
    """A clean environment like a runner's: this interpreter's `reconciler` first on PATH,
    no service variables from the caller, no proxy (the tests reach 127.0.0.1 only)."""
    keep = ("HOME", "LANG", "LC_ALL", "TMPDIR", "SYSTEMROOT")
    env = {k: v for k, v in os.environ.items() if k in keep}
    env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")])
    env["NO_PROXY"] = "127.0.0.1,localhost"
    env["NO_COLOR"] = "1"
    env.update(extra)
    return env


def run_bash(
    script: str, env: Mapping[str, str], cwd: Path, *, timeout: float = 180
) -> subprocess.CompletedProcess[str]:
    # Like the runners: the script in a file of its own, outside the working directory.
    handle, name = tempfile.mkstemp(suffix=".sh")
    with os.fdopen(handle, "w", encoding="utf-8") as file:
        file.write(script)
    try:
        return subprocess.run(
            [*GITHUB_BASH, name],
            cwd=cwd,
            env=dict(env),
            capture_output=True,
            text=True,
            timeout=timeout,
            stdin=subprocess.DEVNULL,
        )
    finally:
        os.unlink(name)
