"""The nightly drift recipes, run as the CI services run them, against a sandbox process:
after the apply recipe has made live match the manifests, the drift check exits 0; after
someone changes the helpdesk by hand (an API call past reconciler), it exits 2, which fails
the job, and leaves plan.json for the artifact."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import httpx
import pytest

from reconciler.sandbox.process import SandboxProcess
from tests.ci.conftest import StartSandbox
from tests.ci.recipes import (
    GITHUB,
    GITLAB_CI,
    base_env,
    github_step,
    gitlab_script,
    load_yaml,
    run_bash,
)

pytestmark = pytest.mark.e2e

SERVICE_VARIABLES = (
    "HELPDESK_URL",
    "HELPDESK_TOKEN",
    "HELPDESK_USERNAME",
    "HELPDESK_PASSWORD",
    "WORKSPACE_URL",
    "WORKSPACE_API_KEY",
)
NEW_NOTES = "Changed by hand in the admin panel."


def github_run(
    workflow: str, job: str, step_name: str, repo: Path, sandbox: SandboxProcess
) -> subprocess.CompletedProcess[str]:
    values = {f"secrets.{name}": sandbox.env.get(name, "") for name in SERVICE_VARIABLES}
    values["inputs.force"] = ""  # a push, not a run started by hand
    step = github_step(GITHUB / workflow, job, step_name, values)
    runner_temp = repo.parent / "runner-temp"
    runner_temp.mkdir(exist_ok=True)
    env = base_env(RUNNER_TEMP=str(runner_temp), GITHUB_ACTIONS="true", CI="true", **step.env)
    return run_bash(step.run, env, repo)


def gitlab_run(job: str, repo: Path, sandbox: SandboxProcess) -> subprocess.CompletedProcess[str]:
    config = load_yaml(GITLAB_CI)
    # GitLab's CI/CD variables reach the job as environment variables, after `variables:`.
    env = base_env(GITLAB_CI="true", CI="true", **config["variables"], **sandbox.env)
    return run_bash(gitlab_script(config, job), env, repo)


def change_by_hand(sandbox: SandboxProcess, company: str) -> None:
    api = sandbox.helpdesk_url + "/api"
    with httpx.Client(auth=sandbox.auth, timeout=10, trust_env=False) as client:
        companies = client.get(f"{api}/Companies").json()
        found = next(c for c in companies if c["Name"] == company)
        answer = client.post(
            f"{api}/UpdateCompany",
            data={"id": found["CompanyID"], "name": company, "notes": NEW_NOTES},
        )
        assert answer.status_code == 200, answer.text


def assert_drift_plan(plan_file: Path) -> None:
    plan = json.loads(plan_file.read_text(encoding="utf-8"))
    assert plan["summary"] == {"create": 0, "update": 1, "delete": 0, "enable": 0, "disable": 0}
    [change] = plan["changes"]
    assert change["address"] == 'companies["Acme Corp"]'
    [field] = change["fields"]
    assert field["path"] == "notes" and field["before"] == NEW_NOTES


def test_the_github_drift_check_fails_with_exit_2_after_a_change_by_hand(
    repo: Path, start_sandbox: StartSandbox
) -> None:
    sandbox = start_sandbox()
    applied = github_run("reconciler-apply.yml", "apply", "Apply", repo, sandbox)
    assert applied.returncode == 0, applied.stderr
    assert "Apply complete" in applied.stderr
    assert (repo.parent / "runner-temp" / "apply-log.jsonl").is_file()  # the artifact

    clean = github_run("reconciler-drift.yml", "drift", "Check for drift", repo, sandbox)
    assert clean.returncode == 0, clean.stderr
    assert "::error" not in clean.stdout
    assert json.loads((repo / "plan.json").read_text())["changes"] == []

    change_by_hand(sandbox, "Acme Corp")
    drift = github_run("reconciler-drift.yml", "drift", "Check for drift", repo, sandbox)
    assert drift.returncode == 2, drift.stderr  # a failed step, so a failed job
    assert '~ companies["Acme Corp"]' in drift.stdout  # the plan, readable in the job log
    assert "::error title=Drift::" in drift.stdout
    assert_drift_plan(repo / "plan.json")


def test_the_gitlab_drift_job_fails_with_exit_2_after_a_change_by_hand(
    repo: Path, start_sandbox: StartSandbox
) -> None:
    sandbox = start_sandbox()
    applied = gitlab_run("reconciler-apply", repo, sandbox)
    assert applied.returncode == 0, applied.stderr
    assert (repo / ".reconciler" / "apply-log.jsonl").is_file()  # the artifact

    assert gitlab_run("reconciler-drift", repo, sandbox).returncode == 0

    change_by_hand(sandbox, "Acme Corp")
    drift = gitlab_run("reconciler-drift", repo, sandbox)
    assert drift.returncode == 2, drift.stderr
    assert "Drift: the live helpdesk differs" in drift.stdout
    assert_drift_plan(repo / "plan.json")
