"""The fleet recipes (examples/ci/github/reconciler-fleet-*.yml, checked with the other
workflows by test_files.py, and examples/ci/gitlab/fleet.gitlab-ci.yml, checked here):
GitLab's schema accepts the file, every script passes `bash -n`, apply runs once per
environment behind its own environment and resource group, chained in order; and the
`--affected-by` selection the pull-request recipes rely on picks the right environments
of examples/fleet."""

from __future__ import annotations

import json
import subprocess
import sys

from tests.ci.recipes import CI, ROOT, gitlab_jobs, gitlab_script, load_yaml
from tests.ci.test_files import bash_syntax_error, tool

FLEET_GITLAB = CI / "gitlab" / "fleet.gitlab-ci.yml"


def test_gitlab_accepts_the_fleet_recipe() -> None:
    result = subprocess.run(
        [tool("check-jsonschema"), "--builtin-schema", "vendor.gitlab-ci", str(FLEET_GITLAB)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_every_fleet_gitlab_script_passes_bash_n() -> None:
    config = load_yaml(FLEET_GITLAB)
    for job in gitlab_jobs(config):
        if config[job].get("script"):
            script = gitlab_script(config, job, "script")
            assert bash_syntax_error(script) is None, (job, bash_syntax_error(script))


def test_apply_runs_per_environment_in_order_behind_its_own_environment() -> None:
    config = load_yaml(FLEET_GITLAB)
    applies = [job for job in config if job.startswith("fleet-apply-")]
    names = [config[job]["variables"]["RECONCILER_ENVIRONMENT"] for job in applies]
    assert names == ["acme", "globex", "initech"]
    for previous, job, name in zip([None, *applies], applies, names, strict=False):
        assert config[job]["environment"]["name"] == name
        assert config[job]["resource_group"] == f"reconciler-{name}"
        assert config[job].get("needs") == ([previous] if previous else None)


def affected(*files: str) -> list[str]:
    result = subprocess.run(
        [sys.executable, "-m", "reconciler", "environments", "--format", "json",
         "--affected-by", "-"],
        input="\n".join(files) + "\n",
        cwd=ROOT / "examples" / "fleet",
        capture_output=True,
        text=True,
        timeout=60,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    return [row["name"] for row in json.loads(result.stdout)]


def test_affected_by_picks_the_environments_whose_files_changed() -> None:
    assert affected("tenants/globex/client.yaml") == ["globex"]
    assert affected("vars/initech.yaml", "README.md") == ["initech"]
    assert affected("baseline/people.yaml") == ["acme", "globex", "initech"]
    assert affected("reconciler.yaml") == ["acme", "globex", "initech"]
    assert affected("docs/other.md") == []
