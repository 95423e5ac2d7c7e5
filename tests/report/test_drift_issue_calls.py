"""The drift issue's calls, each request whole (method, path, body), and what
`carry_out` says for each decision (report/tracker.py)."""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest

from reconciler.errors import ApiError, AuthenticationError, UsageError
from reconciler.report.drift import CLOSE, NOTHING, OPEN, UPDATE, Decision, Issue
from reconciler.report.tracker import carry_out, labels_for, tracker_from

GITHUB = {"GITHUB_TOKEN": "tok", "GITHUB_REPOSITORY": "acme/m", "GITHUB_API_URL": "https://gh"}
GITLAB = {"RECONCILER_GITLAB_TOKEN": "tok", "CI_PROJECT_ID": "grp/m", "CI_API_V4_URL": "https://gl"}


class Api:
    """Answers every call from a table, keeping each request."""

    def __init__(self, answers: dict[str, tuple[int, Any, dict[str, str]]]) -> None:
        self.answers = answers
        self.sent: list[tuple[str, str, Any]] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        body = json.loads(request.content) if request.content else None
        path = request.url.raw_path.decode()
        self.sent.append((request.method, path, body))
        status, data, headers = self.answers.get(f"{request.method} {path}", (200, None, {}))
        if data is None:
            return httpx.Response(status, headers=headers)
        return httpx.Response(status, json=data, headers=headers)


def tracker(platform: str, api: Api) -> Any:
    found, _client = tracker_from(platform, GITHUB if platform == "github" else GITLAB,
                                 httpx.MockTransport(api))  # fmt: skip
    return found


ISSUE = Issue(7, "Drift", "<!-- reconciler-drift: prod -->")


def test_github_calls_for_each_decision() -> None:
    item = {"number": 9, "title": "T", "body": None, "labels": [{"name": "drift"}]}
    api = Api({"POST /repos/acme/m/issues": (201, item, {})})
    github = tracker("github", api)
    said = carry_out(github, Decision(OPEN, "T", "B"), labels_for("prod"))
    assert said == (
        "Opened drift issue #9, but without the label(s) environment:prod: create them in "
        "the project (Issues > Labels), or the next run opens another issue."
    )
    assert carry_out(github, Decision(UPDATE, "T2", "B2", issue=ISSUE), []) == (
        "Updated drift issue #7."
    )
    assert carry_out(github, Decision(CLOSE, comment="Gone.", issue=ISSUE), []) == (
        "Closed drift issue #7: the drift is gone."
    )
    assert api.sent == [
        ("POST", "/repos/acme/m/issues", {"title": "T", "body": "B",
                                          "labels": ["drift", "environment:prod"]}),
        ("PATCH", "/repos/acme/m/issues/7", {"title": "T2", "body": "B2"}),
        ("POST", "/repos/acme/m/issues/7/comments", {"body": "Gone."}),
        ("PATCH", "/repos/acme/m/issues/7", {"state": "closed", "state_reason": "completed"}),
    ]  # fmt: skip


def test_gitlab_calls_for_each_decision() -> None:
    item = {"iid": 4, "title": "T", "labels": ["drift", "environment:prod"]}
    api = Api({"POST /projects/grp%2Fm/issues": (201, item, {})})
    gitlab = tracker("gitlab", api)
    assert carry_out(gitlab, Decision(OPEN, "T", "B"), labels_for("prod")) == (
        "Opened drift issue #4."
    )
    carry_out(gitlab, Decision(UPDATE, "T2", "B2", issue=ISSUE), [])
    carry_out(gitlab, Decision(CLOSE, comment="Gone.", issue=ISSUE), [])
    assert api.sent == [
        ("POST", "/projects/grp%2Fm/issues", {"title": "T", "description": "B",
                                              "labels": "drift,environment:prod"}),
        ("PUT", "/projects/grp%2Fm/issues/7", {"title": "T2", "description": "B2"}),
        ("POST", "/projects/grp%2Fm/issues/7/notes", {"body": "Gone."}),
        ("PUT", "/projects/grp%2Fm/issues/7", {"state_event": "close"}),
    ]  # fmt: skip


@pytest.mark.parametrize("platform", ["github", "gitlab"])
def test_nothing_to_do_calls_nothing(platform: str) -> None:
    api = Api({})
    found = tracker(platform, api)
    said = "No drift and no open drift issue: nothing to do."
    assert carry_out(found, Decision(NOTHING), labels_for(None)) == said
    # "Nothing" leaves even a given issue alone: only CLOSE closes.
    assert carry_out(found, Decision(NOTHING, issue=ISSUE), labels_for(None)) == said
    assert api.sent == []


def test_an_environments_issue_carries_its_labels() -> None:
    assert labels_for(None) == ["drift"]
    assert labels_for("") == ["drift"]
    assert labels_for("prod") == ["drift", "environment:prod"]


def test_github_lists_issues_page_by_page_leaving_out_pull_requests() -> None:
    first = [
        {"number": 1, "title": "a", "body": "x"},
        {"number": 2, "title": "pr", "body": "y", "pull_request": {}},
    ]
    second = [{"number": 3, "title": "c", "body": None}]
    pages = iter([(first, {"Link": '<https://gh/next>; rel="next"'}), (second, {})])

    def answer(request: httpx.Request) -> httpx.Response:
        data, headers = next(pages)
        return httpx.Response(200, json=data, headers=headers)

    found, _client = tracker_from("github", GITHUB, httpx.MockTransport(answer))
    assert found.open_issues("drift") == [Issue(1, "a", "x"), Issue(3, "c", "")]


def test_gitlab_follows_x_next_page() -> None:
    asked: list[str | None] = []

    def answer(request: httpx.Request) -> httpx.Response:
        page = request.url.params.get("page")
        asked.append(page)
        if page == "1":
            data = [{"iid": 5, "title": "a", "description": None}]
            return httpx.Response(200, json=data, headers={"X-Next-Page": "2"})
        return httpx.Response(200, json=[{"iid": 6, "title": "b", "description": "d"}],
                              headers={"X-Next-Page": ""})  # fmt: skip

    found, _client = tracker_from("gitlab", GITLAB, httpx.MockTransport(answer))
    assert found.open_issues("drift") == [Issue(5, "a", ""), Issue(6, "b", "d")]
    assert asked == ["1", "2"]


@pytest.mark.parametrize(
    ("status", "error"),
    [(401, AuthenticationError), (403, AuthenticationError), (404, ApiError), (500, ApiError)],
)
def test_a_refused_call_names_method_path_and_status(status: int, error: type) -> None:
    def refuse(request: httpx.Request) -> httpx.Response:
        return httpx.Response(status, json={"message": "no"})

    found, _client = tracker_from("github", GITHUB, httpx.MockTransport(refuse))
    with pytest.raises(ApiError) as raised:
        found.update(7, "t", "b")
    assert type(raised.value) is error
    reason = httpx.codes.get_reason_phrase(status)
    assert str(raised.value) == f"PATCH /repos/acme/m/issues/7 failed: {status} {reason}"


@pytest.mark.parametrize(
    ("platform", "env", "names"),
    [
        ("github", {"GITHUB_REPOSITORY": "a/b"},
         "GITHUB_TOKEN (or RECONCILER_GITHUB_TOKEN) and GITHUB_REPOSITORY"),
        ("github", {"GITHUB_TOKEN": "t"},
         "GITHUB_TOKEN (or RECONCILER_GITHUB_TOKEN) and GITHUB_REPOSITORY"),
        ("gitlab", {"CI_PROJECT_ID": "1", "CI_API_V4_URL": "https://gl"},
         "RECONCILER_GITLAB_TOKEN, CI_PROJECT_ID and CI_API_V4_URL"),
        ("gitlab", {"RECONCILER_GITLAB_TOKEN": "t", "CI_PROJECT_ID": "1"},
         "RECONCILER_GITLAB_TOKEN, CI_PROJECT_ID and CI_API_V4_URL"),
    ],
)  # fmt: skip
def test_a_missing_variable_is_named(platform: str, env: dict[str, str], names: str) -> None:
    with pytest.raises(UsageError) as raised:
        tracker_from(platform, env)
    assert str(raised.value) == f"drift-issue on {platform} needs {names} set"


def test_gitlab_sends_its_token_as_private_token() -> None:
    sent: list[httpx.Request] = []

    def answer(request: httpx.Request) -> httpx.Response:
        sent.append(request)
        return httpx.Response(200, json=[])

    found, _client = tracker_from("gitlab", GITLAB, httpx.MockTransport(answer))
    found.open_issues("drift")
    [request] = sent
    assert request.headers["PRIVATE-TOKEN"] == "tok"
    assert "Authorization" not in request.headers
    assert str(request.url).startswith("https://gl/projects/grp%2Fm/issues?")
