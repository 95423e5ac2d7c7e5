"""`reconciler drift-issue` (cli/drift_issue.py) in-process against the fake GitHub and
GitLab APIs: the environment named in the plan file, the platform and the run's link taken
from the CI's variables, and the messages for a file that is not a plan."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
import pytest
from click.testing import CliRunner

from reconciler.cli import main
from reconciler.report import tracker as tracker_module
from tests.report.fakes import FakePlatform
from tests.report.plans import drifted
from tests.report.test_drift_issue import ENVS, fake

NO_CI = {
    "GITHUB_ACTIONS": "",
    "GITLAB_CI": "",
    "GITHUB_RUN_ID": "",
    "GITHUB_SERVER_URL": "",
    "CI_PIPELINE_URL": "",
}


@pytest.fixture
def faked(monkeypatch: pytest.MonkeyPatch) -> dict[str, FakePlatform]:
    apis = {"github": fake("github"), "gitlab": fake("gitlab")}
    real = tracker_module.tracker_from

    def with_fake(name: str, env: Any, transport: httpx.BaseTransport | None = None) -> Any:
        return real(name, env, apis[name].transport())  # type: ignore[attr-defined]

    monkeypatch.setattr(tracker_module, "tracker_from", with_fake)
    return apis


def invoke(tmp_path: Path, plan: dict[str, Any], env: dict[str, str], *args: str) -> Any:
    plan_file = tmp_path / "plan.json"
    plan_file.write_text(json.dumps(plan), encoding="utf-8")
    return CliRunner().invoke(main, ["drift-issue", str(plan_file), *args], env={**NO_CI, **env})


@pytest.mark.parametrize(
    ("named", "option", "title", "labels"),
    [
        ("prod", [], "Drift in prod", ["drift", "environment:prod"]),
        ("prod", ["--environment", "stage"], "Drift in stage", ["drift", "environment:stage"]),
        (5, [], "Drift", ["drift"]),  # not a name: no environment
        (None, [], "Drift", ["drift"]),
    ],
)
def test_the_environment_comes_from_the_option_else_the_plan_file(
    tmp_path: Path,
    faked: dict[str, FakePlatform],
    named: object,
    option: list[str],
    title: str,
    labels: list[str],
) -> None:
    plan = {**drifted(), "environment": named}
    result = invoke(tmp_path, plan, ENVS["github"], "--platform", "github", *option)
    assert result.exit_code == 0, result.output
    assert result.output == "Opened drift issue #1.\n"
    [issue] = faked["github"].issues
    assert issue.title == f"{title}: the live helpdesk differs from the manifests"
    assert issue.labels == labels


def test_under_github_actions_the_platform_and_the_run_link_are_found(
    tmp_path: Path, faked: dict[str, FakePlatform]
) -> None:
    env = {**ENVS["github"], "GITHUB_ACTIONS": "true", "GITHUB_RUN_ID": "12"}
    assert invoke(tmp_path, drifted(), env).exit_code == 0
    [issue] = faked["github"].issues
    assert "[this run](https://github.com/acme/manifests/actions/runs/12)" in issue.body
    env["GITHUB_SERVER_URL"] = "https://ghe.example"
    faked["github"].issues.clear()
    assert invoke(tmp_path, drifted(), env).exit_code == 0
    [issue] = faked["github"].issues
    assert "[this run](https://ghe.example/acme/manifests/actions/runs/12)" in issue.body


def test_under_gitlab_ci_the_pipeline_is_linked(
    tmp_path: Path, faked: dict[str, FakePlatform]
) -> None:
    env = {**ENVS["gitlab"], "GITLAB_CI": "true", "CI_PIPELINE_URL": "https://gl/p/3"}
    result = invoke(tmp_path, drifted(), env)
    assert result.exit_code == 0, result.output
    [issue] = faked["gitlab"].issues
    assert "[this run](https://gl/p/3)" in issue.body
    assert faked["github"].issues == []


def test_the_run_url_option_wins_and_without_any_no_link(
    tmp_path: Path, faked: dict[str, FakePlatform]
) -> None:
    env = {**ENVS["github"], "GITHUB_RUN_ID": "12"}
    invoke(tmp_path, drifted(), env, "--platform", "github", "--run-url", "https://x/1")
    [issue] = faked["github"].issues
    assert "[this run](https://x/1)" in issue.body and "actions/runs" not in issue.body
    faked["github"].issues.clear()
    invoke(tmp_path, drifted(), ENVS["github"], "--platform", "github")
    [issue] = faked["github"].issues
    assert "[this run]" not in issue.body


def test_outside_ci_without_a_platform_is_refused(tmp_path: Path) -> None:
    result = invoke(tmp_path, drifted(), ENVS["github"])
    assert result.exit_code == 1
    assert result.output == (
        "Error: drift-issue needs --platform github or gitlab (or run it in their CI)\n"
    )


@pytest.mark.parametrize(
    ("content", "said"),
    [
        ("{", "cannot read the plan's JSON (Expecting property name enclosed in double "
              "quotes: line 1 column 2 (char 1))"),
        ('{"kinds": []}', "not a plan (no `changes`): give plan --out or --format json"),
        ("[1]", "not a plan (no `changes`): give plan --out or --format json"),
    ],
)  # fmt: skip
def test_a_file_that_is_not_a_plan_is_refused_saying_what_to_give(
    tmp_path: Path, content: str, said: str
) -> None:
    plan_file = tmp_path / "plan.json"
    plan_file.write_text(content, encoding="utf-8")
    result = CliRunner().invoke(main, ["drift-issue", str(plan_file), "--platform", "github"])
    assert result.exit_code == 1
    assert result.output == f"Error: {plan_file}: {said}\n"


def test_a_missing_plan_file_is_refused_naming_it(tmp_path: Path) -> None:
    missing = tmp_path / "nope.json"
    result = CliRunner().invoke(main, ["drift-issue", str(missing), "--platform", "github"])
    assert result.exit_code == 1
    assert result.output.startswith(f"Error: {missing}: cannot read the plan's JSON ([Errno 2]")


def test_the_help_names_the_variables_the_token_and_the_repository_come_from() -> None:
    shown = CliRunner().invoke(main, ["drift-issue", "--help"], terminal_width=200).output
    for name in ("GITHUB_TOKEN", "RECONCILER_GITHUB_TOKEN", "GITHUB_REPOSITORY",
                 "RECONCILER_GITLAB_TOKEN", "CI_PROJECT_ID", "CI_API_V4_URL"):  # fmt: skip
        assert f"\n    {name} " in shown or f"({name} wins)" in shown, name


@pytest.mark.parametrize(
    ("env", "named"),
    [
        ({"GITHUB_TOKEN": "wrong-token-1"}, "GITHUB_TOKEN"),
        ({"GITHUB_TOKEN": "t", "RECONCILER_GITHUB_TOKEN": "wrong-token-1"},
         "RECONCILER_GITHUB_TOKEN"),
    ],
)  # fmt: skip
def test_a_refused_token_is_named_by_its_variable_never_shown(
    tmp_path: Path, faked: dict[str, FakePlatform], env: dict[str, str], named: str
) -> None:
    result = invoke(tmp_path, drifted(), {**ENVS["github"], **env}, "--platform", "github")
    assert result.exit_code == 1
    assert result.output.startswith("Error: GET /repos/acme/manifests/issues failed: 401 ")
    assert result.output.endswith(f" (the token of {named})\n")
    assert "wrong-token-1" not in result.output
