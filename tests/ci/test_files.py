"""The CI recipes are well-formed: their YAML parses, every shell script passes `bash -n`,
the github-script step is valid JavaScript, and they keep the rules the recipes promise
(only the four first-party actions, no `${{ }}` inside scripts, secrets only where needed,
never two applies at once, the same marker and manifest path everywhere)."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.ci.recipes import (
    GITLAB_CI,
    gitlab_jobs,
    gitlab_script,
    load_yaml,
    run_scripts,
    workflow_files,
)

ALLOWED_ACTIONS = {
    "actions/checkout",
    "actions/setup-python",
    "actions/upload-artifact",
    "actions/github-script",
}
MARKER = "<!-- reconciler-plan -->"


def bash_syntax_error(script: str) -> str | None:
    result = subprocess.run(
        ["bash", "-n"], input=script, capture_output=True, text=True, timeout=30
    )
    return result.stderr or None if result.returncode else None


def workflows() -> dict[str, Any]:
    return {path.name: load_yaml(path) for path in workflow_files()}


def test_there_are_the_three_github_workflows() -> None:
    assert sorted(workflows()) == [
        "reconciler-apply.yml",
        "reconciler-drift.yml",
        "reconciler-plan.yml",
    ]


@pytest.mark.parametrize("name", [path.name for path in workflow_files()])
def test_every_github_run_script_passes_bash_n(name: str) -> None:
    workflow = workflows()[name]
    scripts = run_scripts(workflow)
    assert scripts
    for where, script in scripts:
        assert bash_syntax_error(script) is None, (where, bash_syntax_error(script))
        # Expressions in a script are a script-injection risk: values go through `env:`.
        assert "${{" not in script, where


def test_every_gitlab_script_passes_bash_n() -> None:
    config = load_yaml(GITLAB_CI)
    jobs = gitlab_jobs(config)
    assert sorted(jobs) == ["reconciler-apply", "reconciler-drift", "reconciler-plan"]
    scripts = ["\n".join(config["default"]["before_script"])]
    for job in jobs:
        for part in ("script", "after_script"):
            if config[job].get(part):
                scripts.append(gitlab_script(config, job, part))
    for script in scripts:
        assert bash_syntax_error(script) is None, (script, bash_syntax_error(script))


def test_the_github_workflows_use_only_first_party_actions_pinned_to_a_version() -> None:
    for name, workflow in workflows().items():
        for job in workflow["jobs"].values():
            for step in job["steps"]:
                if "uses" in step:
                    action, _, version = step["uses"].partition("@")
                    assert action in ALLOWED_ACTIONS, (name, step["uses"])
                    assert re.fullmatch(r"v\d+|[0-9a-f]{40}", version), (name, step["uses"])


def test_secrets_reach_only_the_steps_that_call_the_services() -> None:
    for name, workflow in workflows().items():
        assert "secrets." not in str(workflow.get("env")), name
        for job in workflow["jobs"].values():
            assert "secrets." not in str(job.get("env")), name
            for step in job["steps"]:
                uses_secrets = "secrets." in str(step.get("env"))
                calls_services = re.search(r"reconciler (plan|apply)", step.get("run", ""))
                assert uses_secrets == bool(calls_services), (name, step.get("name"))


def test_the_triggers_and_the_concurrency_of_each_workflow() -> None:
    found = workflows()
    plan, apply, drift = (
        found["reconciler-plan.yml"],
        found["reconciler-apply.yml"],
        found["reconciler-drift.yml"],
    )
    assert set(plan["on"]) == {"pull_request"}
    assert plan["permissions"]["pull-requests"] == "write"
    assert plan["concurrency"]["cancel-in-progress"] is True

    assert apply["on"]["push"]["branches"] == ["main"]
    # One apply at a time, and never one cancelled half-way by the next.
    assert apply["concurrency"] == {"group": "reconciler-apply", "cancel-in-progress": False}
    step = next(s for s in apply["jobs"]["apply"]["steps"] if s.get("name") == "Apply")
    assert 'reconciler apply "$MANIFESTS" --yes' in step["run"]

    [schedule] = drift["on"]["schedule"]
    assert len(schedule["cron"].split()) == 5
    check = next(s for s in drift["jobs"]["drift"]["steps"] if s.get("name") == "Check for drift")
    assert "--detailed-exitcode" in check["run"] and "--out plan.json" in check["run"]
    upload = drift["jobs"]["drift"]["steps"][-1]
    assert upload["uses"].startswith("actions/upload-artifact@")
    assert upload["with"]["path"] == "plan.json" and upload["if"] == "${{ !cancelled() }}"


def test_the_gitlab_jobs_run_on_the_right_pipelines() -> None:
    config = load_yaml(GITLAB_CI)
    rules = {job: [rule["if"] for rule in config[job]["rules"]] for job in gitlab_jobs(config)}
    assert rules["reconciler-plan"] == ['$CI_PIPELINE_SOURCE == "merge_request_event"']
    assert rules["reconciler-drift"] == ['$CI_PIPELINE_SOURCE == "schedule"']
    assert "$CI_DEFAULT_BRANCH" in rules["reconciler-apply"][0]
    assert config["reconciler-apply"]["resource_group"] == "reconciler-apply"
    assert config["reconciler-drift"]["artifacts"] == {
        "when": "always",
        "paths": ["plan.json"],
        "expire_in": "30 days",
    }


def test_both_services_use_the_same_marker_and_manifest_path() -> None:
    gitlab = load_yaml(GITLAB_CI)["variables"]
    plan = workflows()["reconciler-plan.yml"]["env"]
    assert gitlab["PLAN_MARKER"] == plan["PLAN_MARKER"] == MARKER
    for name, workflow in workflows().items():
        assert workflow["env"]["MANIFESTS"] == gitlab["MANIFESTS"] == "manifests", name
        spec = workflow["env"]["RECONCILER_PIP_SPEC"]
        assert spec == gitlab["RECONCILER_PIP_SPEC"], name
        assert "git+" in spec and "@v" in spec  # pinned, and not the unrelated PyPI package


def test_the_github_script_is_valid_javascript(tmp_path: Path) -> None:
    node = shutil.which("node")
    if node is None:
        pytest.skip("Node.js is not installed")
    steps = workflows()["reconciler-plan.yml"]["jobs"]["plan"]["steps"]
    [script] = [s["with"]["script"] for s in steps if "github-script" in s.get("uses", "")]
    # actions/github-script runs the script as the body of an async function.
    wrapped = tmp_path / "script.js"
    wrapped.write_text(f"(async () => {{\n{script}\n}});\n", encoding="utf-8")
    result = subprocess.run([node, "--check", str(wrapped)], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
