"""The CI recipes are well-formed: their YAML parses, every shell script passes `bash -n`,
the github-script step is valid JavaScript, the services' own schemas accept them
(check-jsonschema's vendored GitHub-workflow and GitLab-CI schemas) and zizmor finds no
medium or high risk in them; and they keep the rules the recipes promise (only the four
first-party actions, each pinned to a release commit; no `${{ }}` inside scripts; no
persisted checkout credentials; permissions per job; secrets only where needed; apply
behind a protected environment, never two at once; the same marker, manifest path and
pinned release everywhere)."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any

import pytest

from tests.ci.recipes import (
    GITHUB,
    GITLAB_CI,
    gitlab_jobs,
    gitlab_script,
    load_yaml,
    run_scripts,
    workflow_files,
)

# The release each action is pinned to, and that release's commit, read from the tags of
# the actions' own repositories (`git rev-parse vX.Y.Z^{commit}`). A tag can be moved; a
# commit cannot. To update: the new release's commit and version, here and in the files.
PINNED_ACTIONS = {
    "actions/checkout": ("3d3c42e5aac5ba805825da76410c181273ba90b1", "v7.0.1"),
    "actions/setup-python": ("5fda3b95a4ea91299a34e894583c3862153e4b97", "v7.0.0"),
    "actions/upload-artifact": ("bbbca2ddaa5d8feaa63e36b76fdaad77386f024f", "v7.0.0"),
    "actions/github-script": ("ed597411d8f924073f98dfc5c65a23a2325f34cd", "v8.0.0"),
    "actions/cache/restore": ("27d5ce7f107fe9357f9df03efb73ab90386fccae", "v5.0.5"),
    "actions/cache/save": ("27d5ce7f107fe9357f9df03efb73ab90386fccae", "v5.0.5"),
}
# The recipes install from the repository that `[project.urls]` names (no release yet).
PIP_SPEC = "helpdesk-reconciler @ git+{}@main".format(
    tomllib.loads((Path(__file__).parents[2] / "pyproject.toml").read_text(encoding="utf-8"))[
        "project"
    ]["urls"]["Repository"]
)
USES = re.compile(r"^\s*(?:- )?uses: (\S+)@(\S+)(?: # (\S+))?$", re.MULTILINE)
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
        "reconciler-fleet-apply.yml",  # the fleet recipes (docs/environments.md)
        "reconciler-fleet-drift.yml",
        "reconciler-fleet-plan.yml",
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


def test_the_github_workflows_pin_first_party_actions_to_a_release_commit() -> None:
    for path in workflow_files():
        found = USES.findall(path.read_text(encoding="utf-8"))
        assert found, path.name
        for action, ref, comment in found:
            # `uses: owner/action@<commit> # vX.Y.Z`: the commit runs, the comment says
            # which release it is, for people and for update tools.
            assert (ref, comment) == PINNED_ACTIONS[action], (path.name, action)


def test_checkout_keeps_no_credentials() -> None:
    for name, workflow in workflows().items():
        for job in workflow["jobs"].values():
            checkouts = [s for s in job["steps"] if "actions/checkout" in s.get("uses", "")]
            assert checkouts, name
            for step in checkouts:
                assert step["with"]["persist-credentials"] is False, name


def test_permissions_are_granted_per_job_and_only_what_each_uses() -> None:
    found = workflows()
    for name, workflow in found.items():
        assert workflow["permissions"] == {}, name
    assert found["reconciler-plan.yml"]["jobs"]["plan"]["permissions"] == {
        "contents": "read",
        "pull-requests": "write",  # the plan comment
    }
    # contents: write, to push the applied mark (docs/drift.md).
    assert found["reconciler-apply.yml"]["jobs"]["apply"]["permissions"] == {"contents": "write"}
    assert found["reconciler-drift.yml"]["jobs"]["drift"]["permissions"] == {
        "contents": "read",
        "issues": "write",  # the drift issue
    }


def test_the_secrets_that_write_are_behind_the_protected_environment() -> None:
    found = workflows()
    assert found["reconciler-apply.yml"]["jobs"]["apply"]["environment"] == "helpdesk-production"
    for name, job in (("reconciler-plan.yml", "plan"), ("reconciler-drift.yml", "drift")):
        environment = found[name]["jobs"][job]["environment"]
        assert environment == {"name": "helpdesk-read", "deployment": False}, name
    gitlab = load_yaml(GITLAB_CI)
    assert gitlab["reconciler-apply"]["environment"] == {
        "name": "helpdesk-production",
        "deployment_tier": "production",
    }
    for job in ("reconciler-plan", "reconciler-drift"):
        assert gitlab[job]["environment"] == {"name": "helpdesk-read", "action": "access"}


def tool(name: str) -> str:
    # Installed with the dev extra, next to this interpreter.
    path = shutil.which(name, path=str(Path(sys.executable).parent))
    assert path is not None, f"{name} is not installed: pip install -e '.[dev]'"
    return path


def test_zizmor_finds_no_medium_or_high_risk() -> None:
    result = subprocess.run(
        [
            tool("zizmor"),
            "--offline",
            "--no-config",
            "--format",
            "json",
            "--min-severity",
            "medium",
            *map(str, workflow_files()),
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    findings = json.loads(result.stdout)
    assert [(f["ident"], f["determinations"]["severity"]) for f in findings] == []


@pytest.mark.parametrize(
    ("schema", "files"),
    [
        ("vendor.github-workflows", [str(p) for p in sorted(GITHUB.glob("*.yml"))]),
        ("vendor.gitlab-ci", [str(GITLAB_CI)]),
    ],
    ids=["github", "gitlab"],
)
def test_the_services_schemas_accept_the_recipes(schema: str, files: list[str]) -> None:
    # The schemas check-jsonschema ships with: no network.
    result = subprocess.run(
        [tool("check-jsonschema"), "--builtin-schema", schema, *files],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stdout + result.stderr


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
    assert upload["with"]["path"].split() == ["plan.json", "plan.html", "junit.xml"]
    assert upload["if"] == "${{ !cancelled() }}"


def test_the_gitlab_jobs_run_on_the_right_pipelines() -> None:
    config = load_yaml(GITLAB_CI)
    rules = {job: [rule["if"] for rule in config[job]["rules"]] for job in gitlab_jobs(config)}
    assert rules["reconciler-plan"] == ['$CI_PIPELINE_SOURCE == "merge_request_event"']
    assert rules["reconciler-drift"] == ['$CI_PIPELINE_SOURCE == "schedule"']
    assert "$CI_DEFAULT_BRANCH" in rules["reconciler-apply"][0]
    assert config["reconciler-apply"]["resource_group"] == "reconciler-apply"
    assert config["reconciler-drift"]["artifacts"] == {
        "when": "always",
        "paths": ["plan.json", "plan.html"],
        "reports": {"junit": "junit.xml"},
        "expire_in": "30 days",
    }


def test_both_services_use_the_same_marker_and_manifest_path() -> None:
    gitlab = load_yaml(GITLAB_CI)["variables"]
    plan = workflows()["reconciler-plan.yml"]["env"]
    assert gitlab["PLAN_MARKER"] == plan["PLAN_MARKER"] == MARKER
    for name, workflow in workflows().items():
        if "fleet" not in name:  # a fleet's paths are in reconciler.yaml
            assert workflow["env"]["MANIFESTS"] == gitlab["MANIFESTS"] == "manifests", name
        # No release is published (issue 22): the repository, by the distribution's own
        # name (not the unrelated `reconciler` of the package index), one line in every
        # file, and the files say how to pin it to a commit.
        assert workflow["env"]["RECONCILER_PIP_SPEC"] == gitlab["RECONCILER_PIP_SPEC"], name
        assert gitlab["RECONCILER_PIP_SPEC"] == PIP_SPEC
    for text in (workflow_text("reconciler-plan.yml"), GITLAB_CI.read_text(encoding="utf-8")):
        assert "PIN IT: replace `main` with the full hash of the commit" in text
        assert '"helpdesk-reconciler==X.Y.Z"' in text


def workflow_text(name: str) -> str:
    return (GITHUB / name).read_text(encoding="utf-8")


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
