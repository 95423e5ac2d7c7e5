"""`reconciler drift-issue` against fake GitHub and GitLab APIs (tests/report/fakes.py):
a drift that changes updates the open issue's title and body; a listing of labelled
issues is read 50 pages at most; every call has a 30-second timeout (a hung API fails the
job instead of holding it); the variables GitLab needs are named when missing."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
import pytest
from click.testing import CliRunner

from reconciler.cli import main
from reconciler.errors import AuthenticationError, UsageError
from reconciler.report.digest import Planned
from reconciler.report.drift import decide
from reconciler.report.tracker import carry_out, labels_for, tracker_from
from tests.report.fakes import FakePlatform
from tests.report.plans import clean, drifted, several_kinds
from tests.report.test_drift_issue import ENVS, TOKEN, fake


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


def run(
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
    run(platform, api, drifted())
    [issue] = api.issues
    first = issue.body
    said = run(platform, api, several_kinds("prod"))
    assert said == f"Updated drift issue #{issue.number}."
    assert [i.number for i in api.issues] == [issue.number] and issue.state == "open"
    assert issue.body != first
    assert "`users`" in issue.body and "`users`" not in first  # the new drift's kinds
    assert issue.title == "Drift in prod: the live helpdesk differs from the manifests"
    issue.title = "Renamed by hand"  # found by the marker in its body, its title restored
    run(platform, api, several_kinds("prod"))
    assert issue.title == "Drift in prod: the live helpdesk differs from the manifests"


@pytest.mark.parametrize("platform", ["github", "gitlab"])
def test_every_call_has_a_30_second_timeout(platform: str) -> None:
    api = fake(platform)
    via = Recording(api)
    run(platform, api, drifted(), via)
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
    run("github", api, drifted())
    via = Recording(api)
    run("github", api, clean(), via)
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
    assert "403" in str(refused.value) and "GET" in str(refused.value)
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
