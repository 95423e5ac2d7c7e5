"""The GitHub pull-request workflow's Validate and Plan steps, run as GitHub runs them (the
step's own bash script, `bash --noprofile --norc -eo pipefail`, the workflow's environment
with its `${{ ... }}` expressions replaced) against a sandbox process seeded with the acme
tenant, in a checkout whose `manifests/` is examples/acme. What they leave in
`$RUNNER_TEMP/plan-comment.md` is what the next step posts on the pull request."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest

from reconciler.sandbox.process import SandboxProcess
from tests.ci.conftest import StartSandbox
from tests.ci.recipes import EMPTY_SEED, GITHUB, base_env, github_step, run_bash

pytestmark = pytest.mark.e2e

WORKFLOW = GITHUB / "reconciler-plan.yml"
MARKER = "<!-- reconciler-plan -->"
GITHUB_COMMENT_LIMIT = 65_536
HEAD_SHA = "9f1c2e3d4b5a69788796a5b4c3d2e1f0a9b8c7d6"
CONTEXT = {
    "github.event.pull_request.head.sha": HEAD_SHA,
    # Not in the test's checkout (no git history): the step plans everything.
    "github.event.pull_request.base.sha": "0123456789abcdef0123456789abcdef01234567",
    "github.server_url": "https://github.com",
    "github.repository": "acme/helpdesk-config",
    "github.run_id": "4242",
}
SERVICE_VARIABLES = (
    "HELPDESK_URL",
    "HELPDESK_TOKEN",
    "HELPDESK_USERNAME",
    "HELPDESK_PASSWORD",
    "WORKSPACE_URL",
    "WORKSPACE_API_KEY",
)


def secrets_of(sandbox: SandboxProcess, **overrides: str) -> dict[str, str]:
    """The repository secrets, as the sandbox printed them."""
    values = {f"secrets.{name}": sandbox.env.get(name, "") for name in SERVICE_VARIABLES}
    values.update({f"secrets.{name}": value for name, value in overrides.items()})
    return {**CONTEXT, **values}


def run_step(
    name: str, repo: Path, values: dict[str, str]
) -> tuple[subprocess.CompletedProcess[str], Path]:
    runner_temp = repo.parent / "runner-temp"
    runner_temp.mkdir(exist_ok=True)
    step = github_step(WORKFLOW, "plan", name, values)
    env = base_env(RUNNER_TEMP=str(runner_temp), GITHUB_ACTIONS="true", CI="true", **step.env)
    return run_bash(step.run, env, repo), runner_temp / "plan-comment.md"


def direct_markdown_plan(repo: Path, sandbox: SandboxProcess) -> str:
    result = subprocess.run(
        [
            "reconciler",
            "plan",
            "manifests",
            "--format",
            "markdown",
            "--source-url",
            f"https://github.com/acme/helpdesk-config/blob/{HEAD_SHA}",
        ],
        cwd=repo,
        env=base_env(**sandbox.env),
        capture_output=True,
        text=True,
        timeout=120,
        stdin=subprocess.DEVNULL,
    )
    assert result.returncode == 0, result.stderr
    return result.stdout


def test_the_plan_step_writes_the_comment_github_would_post(
    repo: Path, start_sandbox: StartSandbox
) -> None:
    sandbox = start_sandbox()
    values = secrets_of(sandbox)

    validated, comment_file = run_step("Validate", repo, values)
    assert validated.returncode == 0, validated.stderr
    assert "Valid:" in validated.stderr and not comment_file.exists()

    planned, comment_file = run_step("Plan", repo, values)
    # Changes present: the step, and so the job, succeeds.
    assert planned.returncode == 0, planned.stderr
    saved = json.loads((comment_file.parent / "plan.json").read_text(encoding="utf-8"))
    assert saved["summary"] == {"create": 8, "update": 10, "delete": 0, "enable": 0, "disable": 2}
    comment = comment_file.read_text(encoding="utf-8")
    assert comment.startswith(MARKER + "\n")
    assert len(comment) < GITHUB_COMMENT_LIMIT

    # One part: the summary table and the acme seed's changes (examples/acme/README.md).
    assert not (comment_file.parent / "plan-comment-2.md").exists()
    assert "| kind | create | update | delete | enable | disable |" in comment
    assert "| **total** | **8** | **10** | **0** | **0** | **2** |" in comment
    assert "**Plan: 8 to create, 10 to update, 0 to delete, 0 to enable, 2 to disable.**" in (
        comment
    )
    for address in (
        'companies["Globex Logistics"]',
        'categories["Office Supplies"]',
        'users["ivan"]',
        'automation_rules["102"]',
        'workspace.employees["george.lin@globex-logistics.com"]',
    ):
        assert address in comment, address
    assert "<details><summary>companies: 1 to create, 2 to update</summary>" in comment

    # Exactly the plan `reconciler plan --format markdown` prints, between the marker and a
    # footer naming the pull request's head commit and the run.
    body = comment.removeprefix(MARKER + "\n")
    plan_part, _, footer = body.rpartition("\n<sub>")
    assert plan_part == direct_markdown_plan(repo, sandbox)
    run_url = "https://github.com/acme/helpdesk-config/actions/runs/4242"
    assert footer == f"Planned at {HEAD_SHA[:7]} by [this run]({run_url}).</sub>\n"

    # No credential reaches the comment or the log.
    for secret in (sandbox.env["HELPDESK_PASSWORD"], sandbox.env["HELPDESK_TOKEN"]):
        assert secret not in comment and secret not in planned.stderr + planned.stdout


def test_with_the_base_commit_the_plan_covers_what_the_pull_request_changed(
    repo: Path, start_sandbox: StartSandbox
) -> None:
    sandbox = start_sandbox()
    git = ["git", "-c", "user.name=ci", "-c", "user.email=ci@example.com"]
    for command in (["init", "-q"], ["add", "-A"], ["commit", "-qm", "base"]):
        subprocess.run([*git, *command], cwd=repo, check=True, capture_output=True)
    base = subprocess.run(
        ["git", "rev-parse", "HEAD"], cwd=repo, check=True, capture_output=True, text=True
    ).stdout.strip()
    people = repo / "manifests" / "people.yaml"
    text = people.read_text(encoding="utf-8")
    people.write_text(text.replace("last_name: Smith", "last_name: Smyth", 1), encoding="utf-8")

    values = {**secrets_of(sandbox), "github.event.pull_request.base.sha": base}
    planned, comment_file = run_step("Plan", repo, values)
    assert planned.returncode == 0, planned.stderr
    comment = comment_file.read_text(encoding="utf-8")
    assert comment.startswith(MARKER + "\n> Partial plan: ")
    assert "the 1 added or changed since " + base in comment
    assert 'users["alice"]' in comment and 'companies["Globex Logistics"]' not in comment
    saved = json.loads((comment_file.parent / "plan.json").read_text(encoding="utf-8"))
    assert saved["scope"]["partial"] is True and saved["scope"]["changed"] == 1


def test_a_failing_plan_fails_the_step_and_the_comment_says_why(
    repo: Path, start_sandbox: StartSandbox
) -> None:
    sandbox = start_sandbox()
    values = secrets_of(sandbox, HELPDESK_TOKEN="not-the-token")
    planned, comment_file = run_step("Plan", repo, values)
    assert planned.returncode == 1
    comment = comment_file.read_text(encoding="utf-8")
    assert comment.startswith(MARKER + "\n")
    assert "## reconciler plan failed (exit 1)" in comment
    assert re.search(r"```text\n.*401", comment, re.DOTALL), comment
    assert "not-the-token" not in comment


def test_an_invalid_manifest_fails_the_validate_step_with_the_problems_in_the_comment(
    repo: Path,
) -> None:
    (repo / "manifests" / "broken.yaml").write_text(
        "companies:\n  - name: Initech\n    colour: red\n", encoding="utf-8"
    )
    validated, comment_file = run_step("Validate", repo, dict(CONTEXT))
    assert validated.returncode == 1
    comment = comment_file.read_text(encoding="utf-8")
    assert comment.startswith(MARKER + "\n## reconciler validate failed\n")
    assert "manifests/broken.yaml:3:5:" in comment
    assert "manifests/broken.yaml:3:5:" in validated.stderr  # also in the job's log


def test_a_huge_plan_is_posted_in_parts_that_hold_every_change(
    repo: Path, start_sandbox: StartSandbox
) -> None:
    sandbox = start_sandbox(seed=EMPTY_SEED)
    manifests = repo / "manifests"
    for path in manifests.iterdir():
        path.unlink()
    users = "".join(
        f"  - username: user{n:04d}\n    email: user{n:04d}@example.com\n"
        f"    first_name: First{n:04d}\n    last_name: Last{n:04d}\n"
        f"    notes: {'A note long enough to make the plan large. ' * 3}\n"
        for n in range(1500)
    )
    (manifests / "users.yaml").write_text("users:\n" + users, encoding="utf-8")
    planned, first = run_step("Plan", repo, secrets_of(sandbox))
    assert planned.returncode == 0, planned.stderr
    parts = [first.read_text(encoding="utf-8")]
    while (first.parent / f"plan-comment-{len(parts) + 1}.md").is_file():
        parts.append((first.parent / f"plan-comment-{len(parts) + 1}.md").read_text("utf-8"))
    assert len(parts) > 2
    assert parts[0].startswith(MARKER + "\n")
    assert "| users | 1,500 | 0 |" in parts[0]
    for number, part in enumerate(parts[1:], start=2):
        assert part.startswith(f"<!-- reconciler-plan part {number} -->\n")
    assert all(len(part) < GITHUB_COMMENT_LIMIT for part in parts)
    together = "".join(parts)
    assert all(f'+ users["user{n:04d}"]' in together for n in range(1500))
    assert "Planned at" in parts[-1] and "Planned at" not in parts[0]
    assert (first.parent / "plan.json").is_file()
