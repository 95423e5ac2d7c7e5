"""The drift issue's lifecycle against fakes of GitHub's and GitLab's issues APIs: drift
appears (exactly one issue opened), persists (the same issue updated, never a second),
clears (that issue closed with a comment); a failed plan touches nothing."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest
from click.testing import CliRunner

from reconciler.cli import main
from reconciler.errors import AuthenticationError
from reconciler.report import tracker as tracker_module
from reconciler.report.digest import Planned
from reconciler.report.drift import PlanFailed, decide, marker
from reconciler.report.tracker import carry_out, labels_for, tracker_from
from tests.report.fakes import FakeGitHub, FakeGitLab, FakePlatform
from tests.report.plans import clean, drifted, failed

TOKEN = "tok-1234567890"
ENVS = {
    "github": {"GITHUB_TOKEN": TOKEN, "GITHUB_REPOSITORY": "acme/manifests"},
    "gitlab": {
        "RECONCILER_GITLAB_TOKEN": TOKEN,
        "CI_PROJECT_ID": "42",
        "CI_API_V4_URL": "https://gitlab.example.com/api/v4",
    },
}
FAKES: dict[str, Callable[[str], FakePlatform]] = {"github": FakeGitHub, "gitlab": FakeGitLab}


def fake(platform: str, token: str = TOKEN) -> FakePlatform:
    return FAKES[platform](token)


def run(platform: str, fake_api: FakePlatform, plan: dict[str, Any], env: str | None) -> str:
    transport = fake_api.transport()  # type: ignore[attr-defined]
    tracker, client = tracker_from(platform, ENVS[platform], transport)
    planned = Planned(plan, env)
    with client:
        decision = decide(planned, tracker.open_issues("drift"), ["[run 7](https://ci/7)"])
        return carry_out(tracker, decision, labels_for(env))


@pytest.mark.parametrize("platform", ["github", "gitlab"])
def test_drift_appears_persists_and_clears_in_exactly_one_issue(platform: str) -> None:
    api = fake(platform)
    api.add("Printer broken", "not ours", ["drift"])  # someone's issue with the label
    if platform == "github":  # GitHub lists pull requests among the issues
        api.add("Old PR", marker("prod"), ["drift"], pull_request=True)
    others = len(api.issues)

    assert run(platform, api, clean(), "prod") == (
        "No drift and no open drift issue: nothing to do."
    )
    assert len(api.issues) == others

    said = run(platform, api, drifted("first by hand"), "prod")
    [issue] = [i for i in api.issues if i.title.startswith("Drift")]
    assert said == f"Opened drift issue #{issue.number}."
    assert issue.labels == ["drift", "environment:prod"]
    assert issue.title == "Drift in prod: the live helpdesk differs from the manifests"
    assert issue.body.startswith(marker("prod"))
    assert "first by hand" not in issue.body  # the summary, not the values
    assert "`companies` | | 1 |" in issue.body.replace("|  |", "| |")
    assert "[run 7](https://ci/7)" in issue.body

    before = issue.body
    assert run(platform, api, drifted("second by hand"), "prod") == (
        f"Updated drift issue #{issue.number}."
    )
    assert [i.number for i in api.issues if i.title.startswith("Drift")] == [issue.number]
    assert issue.state == "open" and issue.body == before  # same drift, same summary

    said = run(platform, api, clean(), "prod")
    assert said == f"Closed drift issue #{issue.number}: the drift is gone."
    assert issue.state == "closed"
    assert issue.comments == [
        "The drift is gone: [run 7](https://ci/7) found no changes (no changes). Closing."
    ]
    assert [i.state for i in api.issues[:others]] == ["open"] * others  # the others untouched
    assert all(not i.comments for i in api.issues[:others])


@pytest.mark.parametrize("platform", ["github", "gitlab"])
def test_each_environment_has_its_own_issue_found_past_the_first_page(platform: str) -> None:
    api = fake(platform)
    for n in range(3):  # fills the fake's first page (2 a page) and part of the second
        api.add(f"Someone's {n}", "hand-written", ["drift"])
    run(platform, api, drifted(), "staging")
    run(platform, api, drifted(), "prod")
    run(platform, api, drifted(), "staging")
    titles = sorted(i.title for i in api.issues if i.title.startswith("Drift"))
    assert titles == [
        "Drift in prod: the live helpdesk differs from the manifests",
        "Drift in staging: the live helpdesk differs from the manifests",
    ]
    run(platform, api, clean(), "staging")
    states = {i.title.split(":")[0]: i.state for i in api.issues if i.title.startswith("Drift")}
    assert states == {"Drift in prod": "open", "Drift in staging": "closed"}


@pytest.mark.parametrize("platform", ["github", "gitlab"])
def test_a_failed_plan_is_no_drift_issue(platform: str) -> None:
    api = fake(platform)
    run(platform, api, drifted(), None)
    calls = len(api.calls)
    with pytest.raises(PlanFailed, match="1 error"):
        run(platform, api, failed(), None)
    assert len(api.calls) == calls + 1  # the listing only: nothing opened, updated or closed
    [issue] = api.issues
    assert issue.state == "open" and issue.title.startswith("Drift:")


@pytest.mark.parametrize("platform", ["github", "gitlab"])
def test_a_refused_token_is_an_authentication_error_sent_once(platform: str) -> None:
    api = fake(platform, token="another")
    with pytest.raises(AuthenticationError, match="401"):
        run(platform, api, drifted(), None)
    assert api.issues == []


@pytest.mark.parametrize("platform", ["github", "gitlab"])
def test_the_command_keeps_the_issue(
    platform: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    api = fake(platform)
    real = tracker_module.tracker_from

    def with_fake(name: str, env: Any, transport: httpx.BaseTransport | None = None) -> Any:
        return real(name, env, api.transport())  # type: ignore[attr-defined]

    monkeypatch.setattr(tracker_module, "tracker_from", with_fake)
    plan_file = tmp_path / "plan.json"
    env = {**ENVS[platform], "GITHUB_ACTIONS": "", "GITLAB_CI": ""}
    args = ["drift-issue", str(plan_file), "--platform", platform, "--environment", "prod"]
    for plan, said, code in [
        (drifted(), "Opened drift issue #1.", 0),
        (drifted(), "Updated drift issue #1.", 0),
        (failed(), "Error: the plan has 1 error(s)", 1),
        (clean(), "Closed drift issue #1: the drift is gone.", 0),
    ]:
        plan_file.write_text(json.dumps(plan), encoding="utf-8")
        result = CliRunner().invoke(main, args, env=env)
        assert result.exit_code == code, result.output
        assert said in result.output
        assert TOKEN not in result.output
    [issue] = api.issues
    assert issue.state == "closed" and len(issue.comments) == 1


def test_the_command_names_what_is_missing(tmp_path: Path) -> None:
    plan_file = tmp_path / "plan.json"
    plan_file.write_text(json.dumps(drifted()), encoding="utf-8")
    env = {"GITHUB_TOKEN": "", "RECONCILER_GITHUB_TOKEN": "", "GITHUB_REPOSITORY": ""}
    result = CliRunner().invoke(
        main, ["drift-issue", str(plan_file), "--platform", "github"], env=env
    )
    assert result.exit_code == 1
    assert (
        "needs GITHUB_TOKEN (or RECONCILER_GITHUB_TOKEN) and GITHUB_REPOSITORY set" in result.output
    )
    plan_file.write_text("[]", encoding="utf-8")
    result = CliRunner().invoke(main, ["drift-issue", str(plan_file), "--platform", "github"])
    assert result.exit_code == 1 and "not a plan" in result.output


def test_a_label_github_dropped_is_said() -> None:
    api = FakeGitHub(TOKEN, labels=["bug"])  # no `drift` label in this repository
    said = run("github", api, drifted(), "prod")
    assert said.startswith("Opened drift issue #1, but without the label(s) drift, ")
    assert "create them in the project (Issues > Labels)" in said
