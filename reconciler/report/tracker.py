"""The drift issue's decision (drift.py) carried out through GitHub's or GitLab's REST API
(httpx): read the plan's JSON (`sync_drift_issue`), list the open issues labelled `drift`,
then open, update, or comment and close one. The token comes from the environment and is
only ever sent as a header; a refused call is an error naming the method, path and
status, never retried."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any
from urllib.parse import quote

import httpx

from reconciler.errors import ApiError, AuthenticationError, UsageError
from reconciler.report.annotations import default_platform
from reconciler.report.digest import Planned
from reconciler.report.drift import CLOSE, LABEL, NOTHING, OPEN, UPDATE, Decision, Issue, decide

TIMEOUT = 30.0
MAX_PAGES = 50


def _check(response: httpx.Response) -> Any:
    if response.is_success:
        return response.json() if response.content else None
    request = response.request
    error = AuthenticationError if response.status_code in (401, 403) else ApiError
    raise error(response.status_code, request.method, request.url.path, response.reason_phrase)


class GitHubIssues:
    """`/repos/OWNER/REPO/issues` (pull requests, which GitHub lists too, left out)."""

    def __init__(self, client: httpx.Client, repository: str) -> None:
        self._client = client
        self._base = f"/repos/{repository}/issues"

    def open_issues(self, label: str) -> list[Issue]:
        found: list[Issue] = []
        params: dict[str, Any] = {"labels": label, "state": "open", "per_page": 100}
        for page in range(1, MAX_PAGES + 1):
            response = self._client.get(self._base, params={**params, "page": page})
            found += [
                Issue(i["number"], i["title"], i.get("body") or "")
                for i in _check(response)
                if "pull_request" not in i
            ]
            if "next" not in response.links:  # GitHub's Link header names the next page
                break
        return found

    def create(self, title: str, body: str, labels: list[str]) -> Issue:
        data = {"title": title, "body": body, "labels": labels}
        item = _check(self._client.post(self._base, json=data))
        names = tuple(label["name"] for label in item.get("labels") or ())
        return Issue(item["number"], item["title"], body, names)  # the body as sent

    def update(self, number: int, title: str, body: str) -> None:
        _check(self._client.patch(f"{self._base}/{number}", json={"title": title, "body": body}))

    def close(self, number: int, comment: str) -> None:
        _check(self._client.post(f"{self._base}/{number}/comments", json={"body": comment}))
        data = {"state": "closed", "state_reason": "completed"}
        _check(self._client.patch(f"{self._base}/{number}", json=data))


class GitLabIssues:
    """`/projects/ID/issues` (`iid` is the number people see)."""

    def __init__(self, client: httpx.Client, project: str) -> None:
        self._client = client
        self._base = f"/projects/{quote(project, safe='')}/issues"

    def open_issues(self, label: str) -> list[Issue]:
        found: list[Issue] = []
        page: str | None = "1"
        for _ in range(MAX_PAGES):
            params: dict[str, Any] = {"labels": label, "state": "opened", "per_page": 100}
            params["page"] = page
            response = self._client.get(self._base, params=params)
            found += [
                Issue(i["iid"], i["title"], i.get("description") or "") for i in _check(response)
            ]
            page = response.headers.get("X-Next-Page") or None
            if not page:
                break
        return found

    def create(self, title: str, body: str, labels: list[str]) -> Issue:
        data = {"title": title, "description": body, "labels": ",".join(labels)}
        item = _check(self._client.post(self._base, json=data))
        names = tuple(item.get("labels") or ())
        return Issue(item["iid"], item["title"], body, names)  # the body as sent

    def update(self, number: int, title: str, body: str) -> None:
        data = {"title": title, "description": body}
        _check(self._client.put(f"{self._base}/{number}", json=data))

    def close(self, number: int, comment: str) -> None:
        _check(self._client.post(f"{self._base}/{number}/notes", json={"body": comment}))
        _check(self._client.put(f"{self._base}/{number}", json={"state_event": "close"}))


# Both list the open issues with a label, then open, update, or comment and close one.
IssueTracker = GitHubIssues | GitLabIssues


def carry_out(tracker: IssueTracker, decision: Decision, labels: list[str]) -> str:
    """Does what `decision` says; returns what was done, for the job log."""
    if decision.action == OPEN:
        issue = tracker.create(decision.title, decision.body, labels)
        dropped = [label for label in labels if label not in issue.labels]
        if dropped:  # GitHub drops labels the token may not create: the next run would
            # not find this issue, and open another.
            return (
                f"Opened drift issue #{issue.number}, but without the label(s) "
                f"{', '.join(dropped)}: create them in the project (Issues > Labels), or "
                "the next run opens another issue."
            )
        return f"Opened drift issue #{issue.number}."
    assert decision.action == NOTHING or decision.issue is not None
    if decision.action == UPDATE and decision.issue is not None:
        tracker.update(decision.issue.number, decision.title, decision.body)
        return f"Updated drift issue #{decision.issue.number}."
    if decision.action == CLOSE and decision.issue is not None:
        tracker.close(decision.issue.number, decision.comment)
        return f"Closed drift issue #{decision.issue.number}: the drift is gone."
    return "No drift and no open drift issue: nothing to do."


def labels_for(environment: str | None) -> list[str]:
    return [LABEL] + ([f"environment:{environment}"] if environment else [])


def tracker_from(
    platform: str, env: Mapping[str, str], transport: httpx.BaseTransport | None = None
) -> tuple[IssueTracker, httpx.Client]:
    """The tracker for `platform` from the CI's variables: GitHub: GITHUB_TOKEN (or
    RECONCILER_GITHUB_TOKEN), GITHUB_REPOSITORY, GITHUB_API_URL; GitLab:
    RECONCILER_GITLAB_TOKEN, CI_PROJECT_ID, CI_API_V4_URL."""
    if platform not in ("github", "gitlab"):
        raise UsageError("drift-issue needs --platform github or gitlab (or run it in their CI)")
    token = env.get(_token(platform, env))
    if platform == "github":
        place = env.get("GITHUB_REPOSITORY")
        url: str | None = env.get("GITHUB_API_URL") or "https://api.github.com"
        names = "GITHUB_TOKEN (or RECONCILER_GITHUB_TOKEN) and GITHUB_REPOSITORY"
        headers = {
            "Authorization": f"Bearer {token}",
            "Accept": "application/vnd.github+json",
            "X-GitHub-Api-Version": "2022-11-28",
        }
    else:
        place, url = env.get("CI_PROJECT_ID"), env.get("CI_API_V4_URL")
        names = "RECONCILER_GITLAB_TOKEN, CI_PROJECT_ID and CI_API_V4_URL"
        headers = {"PRIVATE-TOKEN": token or ""}
    if not (token and place and url):
        raise UsageError(f"drift-issue on {platform} needs {names} set")
    client = httpx.Client(base_url=url, headers=headers, timeout=TIMEOUT, transport=transport)
    tracker: IssueTracker = (
        GitHubIssues(client, place) if platform == "github" else GitLabIssues(client, place)
    )
    return tracker, client


def sync_drift_issue(
    plan_file: Path,
    env: Mapping[str, str],
    platform: str | None = None,
    environment: str | None = None,
    run_url: str | None = None,
) -> str:
    """`reconciler drift-issue`: the drift issue of the plan in `plan_file` brought in
    step on `platform` (default: the CI this runs in); what was done, in one line."""
    plan = _read_plan(plan_file)
    named = plan.get("environment")
    planned = Planned(plan, environment or (named if isinstance(named, str) else None))
    chosen = platform or default_platform(env)
    where = [f"[this run]({url})" for url in [run_url or _run_url(env)] if url]
    tracker, client = tracker_from(chosen, env)
    with client:
        try:
            decision = decide(planned, tracker.open_issues(LABEL), where)
            return carry_out(tracker, decision, labels_for(planned.environment))
        except AuthenticationError as exc:  # which token was refused; never its value
            raise AuthenticationError(
                exc.status,
                exc.method,
                exc.path,
                f"{exc.message} (the token of {_token(chosen, env)})",
            ) from None


def _token(platform: str, env: Mapping[str, str]) -> str:
    """The variable the token is read from."""
    if platform == "github":
        return "RECONCILER_GITHUB_TOKEN" if env.get("RECONCILER_GITHUB_TOKEN") else "GITHUB_TOKEN"
    return "RECONCILER_GITLAB_TOKEN"


def _read_plan(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as err:
        raise UsageError(f"{path}: cannot read the plan's JSON ({err})") from None
    if not isinstance(data, dict) or "changes" not in data:
        raise UsageError(f"{path}: not a plan (no `changes`): give plan --out or --format json")
    return data


def _run_url(env: Mapping[str, str]) -> str | None:
    if env.get("GITHUB_RUN_ID") and env.get("GITHUB_REPOSITORY"):
        server = env.get("GITHUB_SERVER_URL") or "https://github.com"
        return f"{server}/{env['GITHUB_REPOSITORY']}/actions/runs/{env['GITHUB_RUN_ID']}"
    return env.get("CI_PIPELINE_URL") or None
