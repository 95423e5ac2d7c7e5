"""The GitLab merge-request job, run as the runner runs it: its `script:` entries as one
bash script (`-eo pipefail`) with the file's `variables:` and the CI/CD variables in the
environment, against a sandbox process seeded with the acme tenant; then its after_script,
which posts what the script wrote as the merge request's plan note (to a fake GitLab API on
127.0.0.1)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.ci.conftest import StartSandbox
from tests.ci.fakes import TOKEN, FakeGitLab
from tests.ci.recipes import GITLAB_CI, base_env, gitlab_script, load_yaml, run_bash

pytestmark = pytest.mark.e2e

MARKER = "<!-- reconciler-plan -->"


def test_the_merge_request_job_plans_and_posts_one_note(
    repo: Path, start_sandbox: StartSandbox
) -> None:
    sandbox = start_sandbox()
    config = load_yaml(GITLAB_CI)
    with FakeGitLab() as gitlab:
        env = base_env(
            **config["variables"],
            **sandbox.env,  # the project's CI/CD variables
            CI="true",
            GITLAB_CI="true",
            CI_COMMIT_SHORT_SHA="9f1c2e3d",
            CI_PIPELINE_URL="https://gitlab.example.com/acme/helpdesk-config/-/pipelines/42",
            CI_API_V4_URL=gitlab.api_url,
            CI_PROJECT_ID=str(gitlab.project),
            CI_MERGE_REQUEST_IID=str(gitlab.merge_request),
            RECONCILER_GITLAB_TOKEN=TOKEN,
        )
        planned = run_bash(gitlab_script(config, "reconciler-plan"), env, repo)
        # Validation passed and did not end the script early: the plan ran, with changes,
        # and the job succeeds.
        assert planned.returncode == 0, planned.stderr
        assert "Valid:" in planned.stderr
        comment = (repo / ".reconciler" / "plan-comment.md").read_text(encoding="utf-8")
        assert comment.startswith(MARKER + "\n## reconciler plan\n")
        assert "| **total** | **8** | **10** | **0** | **0** | **2** |" in comment
        assert 'automation_rules["102"]' in comment
        assert comment.endswith(
            "<sub>Planned at 9f1c2e3d by [this pipeline]"
            "(https://gitlab.example.com/acme/helpdesk-config/-/pipelines/42).</sub>\n"
        )
        saved = json.loads((repo / ".reconciler" / "plan.json").read_text(encoding="utf-8"))
        assert saved["summary"]["create"] == 8  # the job's artifact

        posted = run_bash(gitlab_script(config, "reconciler-plan", "after_script"), env, repo)
        assert posted.returncode == 0, posted.stderr
        again = run_bash(gitlab_script(config, "reconciler-plan", "after_script"), env, repo)
        assert again.returncode == 0, again.stderr
    assert [note["body"] for note in gitlab.notes] == [comment]


def test_an_invalid_manifest_fails_the_job_before_planning(
    repo: Path, start_sandbox: StartSandbox
) -> None:
    sandbox = start_sandbox()
    (repo / "manifests" / "broken.yaml").write_text("users:\n  - email: x@y.z\n")
    config = load_yaml(GITLAB_CI)
    env = base_env(**config["variables"], **sandbox.env)
    result = run_bash(gitlab_script(config, "reconciler-plan"), env, repo)
    assert result.returncode == 1
    comment = (repo / ".reconciler" / "plan-comment.md").read_text(encoding="utf-8")
    assert comment.startswith(MARKER + "\n## reconciler validate failed\n")
    assert "manifests/broken.yaml:2:" in comment
    assert not (repo / ".reconciler" / "plan.json").exists()  # the plan never ran
