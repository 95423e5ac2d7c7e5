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
from reconciler.errors import AuthenticationError, UsageError
from reconciler.report import tracker as tracker_module
from reconciler.report.digest import Planned
from reconciler.report.drift import CLOSE, Issue, PlanFailed, decide, marker
from reconciler.report.tracker import carry_out, labels_for, tracker_from
from tests.report.fakes import FakeGitHub, FakeGitLab, FakePlatform
from tests.report.plans import clean, drifted, failed, several_kinds

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
    with pytest.raises(PlanFailed) as failed_plan:
        run(platform, api, failed(), None)
    assert str(failed_plan.value) == (
        "the plan has 1 error(s): no drift issue is opened, updated or closed for a failed plan "
        "(the job fails instead)"
    )
    assert len(api.calls) == calls + 1  # the listing only: nothing opened, updated or closed
    [issue] = api.issues
    assert issue.state == "open" and issue.title.startswith("Drift:")


@pytest.mark.parametrize("platform", ["github", "gitlab"])
def test_a_refused_token_is_an_authentication_error_sent_once(platform: str) -> None:
    api = fake(platform, token="another")
    with pytest.raises(AuthenticationError) as refused:
        run(platform, api, drifted(), None)
    assert (
        str(refused.value)
        == {
            "github": "GET /repos/acme/manifests/issues failed: 401 Unauthorized",
            "gitlab": "GET /api/v4/projects/42/issues failed: 401 Unauthorized",
        }[platform]
    )
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


# `reconciler drift-issue` against fake GitHub and GitLab APIs (tests/report/fakes.py): a drift
# that changes updates the open issue's title and body; a listing of labelled issues is read 50
# pages at most; every call has a 30-second timeout (a hung API fails the job instead of holding
# it); the variables GitLab needs are named when missing.


class Recording(httpx.BaseTransport):
    """The fake API, with the timeout each request was sent with."""

    def __init__(self, api: FakePlatform) -> None:
        self.inner = api.transport()  # type: ignore[attr-defined]
        self.timeouts: list[Any] = []
        self.listings: list[dict[str, str]] = []
        self.requests: list[httpx.Request] = []

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        self.timeouts.append(request.extensions.get("timeout"))
        self.requests.append(request)
        if request.method == "GET":
            self.listings.append(dict(request.url.params))
        response: httpx.Response = self.inner.handle_request(request)
        return response


def run_recorded(
    platform: str, api: FakePlatform, plan: dict[str, Any], via: Recording | None = None
) -> str:
    tracker, client = tracker_from(platform, ENVS[platform], via or Recording(api))
    planned = Planned(plan, "prod")
    with client:
        decision = decide(planned, tracker.open_issues("drift"), ["[run 8](https://ci/8)"])
        return carry_out(tracker, decision, labels_for("prod"))


@pytest.mark.parametrize("platform", ["github", "gitlab"])
def test_a_drift_that_changes_updates_the_open_issue(platform: str) -> None:
    api = fake(platform)
    run_recorded(platform, api, drifted())
    [issue] = api.issues
    first = issue.body
    said = run_recorded(platform, api, several_kinds("prod"))
    assert said == f"Updated drift issue #{issue.number}."
    assert [i.number for i in api.issues] == [issue.number] and issue.state == "open"
    assert issue.body != first
    assert "`users`" in issue.body and "`users`" not in first  # the new drift's kinds
    assert issue.title == "Drift in prod: the live helpdesk differs from the manifests"
    issue.title = "Renamed by hand"  # found by the marker in its body, its title restored
    run_recorded(platform, api, several_kinds("prod"))
    assert issue.title == "Drift in prod: the live helpdesk differs from the manifests"


@pytest.mark.parametrize("platform", ["github", "gitlab"])
def test_every_call_has_a_30_second_timeout(platform: str) -> None:
    api = fake(platform)
    via = Recording(api)
    run_recorded(platform, api, drifted(), via)
    whole = {"connect": 30.0, "read": 30.0, "write": 30.0, "pool": 30.0}
    assert via.timeouts and all(t == whole for t in via.timeouts)


@pytest.mark.parametrize("platform", ["github", "gitlab"])
def test_a_listing_is_read_50_pages_at_most(platform: str) -> None:
    api = fake(platform)
    for n in range(110):  # the fakes list 2 a page: 55 pages
        api.add(f"Someone's {n}", "hand-written", ["drift"])
    tracker, client = tracker_from(platform, ENVS[platform], Recording(api))
    with client:
        found = tracker.open_issues("drift")
    assert len(found) == 100
    assert len([c for c in api.calls if c.startswith("GET")]) == 50


@pytest.mark.parametrize(("platform", "state"), [("github", "open"), ("gitlab", "opened")])
def test_a_listing_asks_for_the_open_drift_issues_100_a_page(platform: str, state: str) -> None:
    # 100 is the most either API gives a page: the fewest calls.
    via = Recording(fake(platform))
    tracker, client = tracker_from(platform, ENVS[platform], via)
    with client:
        tracker.open_issues("drift")
    assert via.listings == [{"labels": "drift", "state": state, "per_page": "100", "page": "1"}]


def test_an_unknown_platform_is_refused() -> None:
    with pytest.raises(UsageError) as refused:
        tracker_from("bitbucket", {})
    assert str(refused.value) == (
        "drift-issue needs --platform github or gitlab (or run it in their CI)"
    )


def test_gitlab_names_the_variables_it_needs(tmp_path: Path) -> None:
    plan_file = tmp_path / "plan.json"
    plan_file.write_text(json.dumps(drifted()), encoding="utf-8")
    env = {"RECONCILER_GITLAB_TOKEN": TOKEN, "CI_PROJECT_ID": "", "CI_API_V4_URL": ""}
    result = CliRunner().invoke(
        main, ["drift-issue", str(plan_file), "--platform", "gitlab"], env=env
    )
    assert result.exit_code == 1
    assert result.output == (
        "Error: drift-issue on gitlab needs RECONCILER_GITLAB_TOKEN, CI_PROJECT_ID and "
        "CI_API_V4_URL set\n"
    )


def test_github_closes_the_issue_as_completed_with_the_headers_it_asks_for() -> None:
    api = fake("github")
    run_recorded("github", api, drifted())
    via = Recording(api)
    run_recorded("github", api, clean(), via)
    [issue] = api.issues
    assert issue.state == "closed"
    [closing] = [r for r in via.requests if r.method == "PATCH"]
    # "Closed as completed" in GitHub's page, not "closed as not planned".
    assert json.loads(closing.content) == {"state": "closed", "state_reason": "completed"}
    for request in via.requests:
        assert request.headers["Accept"] == "application/vnd.github+json"
        assert request.headers["X-GitHub-Api-Version"] == "2022-11-28"


@pytest.mark.parametrize("platform", ["github", "gitlab"])
def test_a_token_without_the_right_is_an_authentication_error(platform: str) -> None:
    # 403: the token is known but may not read or write issues; never retried.
    sent: list[str] = []

    def forbidden(request: httpx.Request) -> httpx.Response:
        sent.append(request.url.path)
        return httpx.Response(403, json={"message": "Resource not accessible by integration"})

    tracker, client = tracker_from(platform, ENVS[platform], httpx.MockTransport(forbidden))
    with client, pytest.raises(AuthenticationError) as refused:
        tracker.open_issues("drift")
    assert (
        str(refused.value)
        == {
            "github": "GET /repos/acme/manifests/issues failed: 403 Forbidden",
            "gitlab": "GET /api/v4/projects/42/issues failed: 403 Forbidden",
        }[platform]
    )
    assert len(sent) == 1


def test_github_prefers_reconcilers_own_token_and_defaults_to_api_github_com() -> None:
    # RECONCILER_GITHUB_TOKEN (a token that may create labels) wins over the job's own.
    sent: list[httpx.Request] = []
    api = fake("github")

    def answer(request: httpx.Request) -> httpx.Response:
        sent.append(request)
        return api.handle(request)  # type: ignore[attr-defined, no-any-return]

    env = {
        "RECONCILER_GITHUB_TOKEN": TOKEN,
        "GITHUB_TOKEN": "the-job's",
        "GITHUB_REPOSITORY": "acme/manifests",
    }
    tracker, client = tracker_from("github", env, httpx.MockTransport(answer))
    with client:
        assert tracker.open_issues("drift") == []
    [listing] = sent
    assert str(listing.url).startswith("https://api.github.com/repos/acme/manifests/issues?")
    assert listing.headers["Authorization"] == f"Bearer {TOKEN}"


# The drift issue as its readers see it: the body whole (the marker the next check finds it by,
# the summary under the title `reconciler drift`, what to do), the oldest issue of the environment
# kept when the marker was copied, and the comment that closes it naming where the clean plan was
# found (or the latest drift check).


def test_a_new_drift_issue_holds_its_marker_the_summary_and_what_to_do() -> None:
    decision = decide(Planned(drifted(), "prod"), [], ["`plan.json`"])
    assert decision.body == (
        "<!-- reconciler-drift: prod -->\n"
        "## reconciler drift\n"
        "\n"
        "### :warning: changes (1 update)\n"
        "\n"
        "| kind | create | update | delete | enable | disable |\n"
        "|---|---|---|---|---|---|\n"
        "| `companies` |  | 1 |  |  |  |\n"
        "\n"
        "Safety brake: passes.\n"
        "\n"
        "The full plan: `plan.json`.\n"
        "\n"
        "This issue is kept up to date by each drift check and closed when live matches the "
        "manifests again. To resolve it, apply the manifests, or change them to match what "
        "was changed by hand.\n"
    )


def test_the_oldest_issue_with_the_marker_is_the_one_updated() -> None:
    body = "<!-- reconciler-drift: prod -->\n..."
    issues = [Issue(12, "copy", body), Issue(7, "first", body), Issue(30, "other", "<!-- x -->")]
    decision = decide(Planned(drifted(), "prod"), issues)
    assert decision.issue is not None and decision.issue.number == 7


def test_the_closing_comment_says_where_the_clean_plan_was_found() -> None:
    issue = Issue(7, "Drift in prod", "<!-- reconciler-drift: prod -->\n")
    closing = decide(Planned(clean(), "prod"), [issue], ["`a.json`", "`b.html`"])
    assert (closing.action, closing.issue) == (CLOSE, issue)
    assert closing.comment == (
        "The drift is gone: `a.json`, `b.html` found no changes (no changes). Closing."
    )
    latest = decide(Planned(clean(), "prod"), [issue])
    assert latest.comment.startswith("The drift is gone: the latest drift check found no")
