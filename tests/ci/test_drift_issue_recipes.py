"""The drift recipes keep one drift issue, run as the CI services run them against a
sandbox process and a fake of the platform's issues API on 127.0.0.1: clean (no issue),
drift by hand (one issue opened), still drifting (the same one updated), applied (closed
with a comment)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from reconciler.sandbox.process import SandboxProcess
from tests.ci.conftest import StartSandbox
from tests.ci.recipes import GITHUB, base_env, github_step, run_bash
from tests.ci.test_drift import change_by_hand, github_run, gitlab_run
from tests.report.fakes import FakeGitHub, FakeGitLab, served

pytestmark = pytest.mark.e2e
TOKEN = "ghs-fake-token-1234"


def github_issue_step(repo: Path, api_url: str) -> subprocess.CompletedProcess[str]:
    step = github_step(
        GITHUB / "reconciler-drift.yml", "drift", "Keep the drift issue", {"github.token": TOKEN}
    )
    env = base_env(
        GITHUB_ACTIONS="true",
        GITHUB_API_URL=api_url,
        GITHUB_REPOSITORY="acme/manifests",
        GITHUB_SERVER_URL="https://github.com",
        GITHUB_RUN_ID="77",
        **step.env,
    )
    return run_bash(step.run, env, repo)


def github_night(repo: Path, sandbox: SandboxProcess, api_url: str) -> str:
    run = github_run("reconciler-drift.yml", "drift", "Check for drift", repo, sandbox)
    assert run.returncode in (0, 2), run.stderr
    assert (repo / "plan.html").is_file() and (repo / "junit.xml").is_file()
    issue = github_issue_step(repo, api_url)
    assert issue.returncode == 0, issue.stderr
    assert TOKEN not in issue.stdout + issue.stderr
    return issue.stderr


def test_the_github_drift_recipe_opens_updates_and_closes_one_issue(
    repo: Path, start_sandbox: StartSandbox
) -> None:
    sandbox = start_sandbox()
    api = FakeGitHub(TOKEN)
    with served(api) as url:
        applied = github_run("reconciler-apply.yml", "apply", "Apply", repo, sandbox)
        assert applied.returncode == 0, applied.stderr
        assert "nothing to do" in github_night(repo, sandbox, url)
        change_by_hand(sandbox, "Acme Corp")
        assert "Opened drift issue #1." in github_night(repo, sandbox, url)
        assert "Updated drift issue #1." in github_night(repo, sandbox, url)
        [issue] = api.issues
        assert issue.labels == ["drift"] and issue.state == "open"
        assert "https://github.com/acme/manifests/actions/runs/77" in issue.body
        assert github_run("reconciler-apply.yml", "apply", "Apply", repo, sandbox).returncode == 0
        assert "Closed drift issue #1" in github_night(repo, sandbox, url)
    assert issue.state == "closed" and len(issue.comments) == 1


def test_the_gitlab_drift_job_keeps_the_issue_when_given_a_token(
    repo: Path, start_sandbox: StartSandbox, monkeypatch: pytest.MonkeyPatch
) -> None:
    sandbox = start_sandbox()
    api = FakeGitLab(TOKEN)
    with served(api) as url:
        env = {
            "RECONCILER_GITLAB_TOKEN": TOKEN,
            "CI_PROJECT_ID": "42",
            "CI_API_V4_URL": url + "/api/v4",
            "CI_PIPELINE_URL": "https://gitlab.example.com/acme/-/pipelines/5",
        }
        for name, value in env.items():
            sandbox.env[name] = value  # gitlab_run passes the sandbox's variables on
        assert gitlab_run("reconciler-apply", repo, sandbox).returncode == 0
        assert gitlab_run("reconciler-drift", repo, sandbox).returncode == 0
        assert api.issues == []
        change_by_hand(sandbox, "Acme Corp")
        drift = gitlab_run("reconciler-drift", repo, sandbox)
        assert drift.returncode == 2 and "Opened drift issue #1." in drift.stderr
        assert "pipelines/5" in api.issues[0].body
        assert (repo / "junit.xml").is_file()
    assert [i.state for i in api.issues] == ["open"]
