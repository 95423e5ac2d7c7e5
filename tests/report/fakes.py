"""Fakes of GitHub's and GitLab's issues APIs (as far as the drift issue uses them), as
httpx MockTransports over an in-memory list of issues. They check the token header and
paginate (2 issues a page) so that a tracker reading only the first page is caught."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import httpx

PAGE = 2


@dataclass
class FakeIssue:
    number: int
    title: str
    body: str
    labels: list[str]
    state: str = "open"
    comments: list[str] = field(default_factory=list)
    pull_request: bool = False


@dataclass
class FakePlatform:
    token: str
    issues: list[FakeIssue] = field(default_factory=list)
    # GitHub: the labels that exist (the others are dropped from a new issue, as GitHub
    # does for a token that may not create labels); None: every label is kept.
    labels: list[str] | None = None
    calls: list[str] = field(default_factory=list)

    def add(self, title: str, body: str, labels: list[str], **extra: Any) -> FakeIssue:
        issue = FakeIssue(len(self.issues) + 1, title, body, labels, **extra)
        self.issues.append(issue)
        return issue

    def opened(self, label: str) -> list[FakeIssue]:
        return [i for i in self.issues if i.state == "open" and label in i.labels]

    def get(self, number: int) -> FakeIssue:
        return next(i for i in self.issues if i.number == number)


class FakeGitHub(FakePlatform):
    def transport(self) -> httpx.MockTransport:
        return httpx.MockTransport(self.handle)

    def handle(self, request: httpx.Request) -> httpx.Response:
        if request.headers.get("Authorization") != f"Bearer {self.token}":
            return httpx.Response(401, json={"message": "Bad credentials"})
        path, method = request.url.path, request.method
        self.calls.append(f"{method} {path}")
        base = "/repos/acme/manifests/issues"
        body = json.loads(request.content) if request.content else {}
        if path == base and method == "GET":
            return self._list(request)
        if path == base and method == "POST":
            wanted = body["labels"]
            kept = [n for n in wanted if n in self.labels] if self.labels is not None else wanted
            issue = self.add(body["title"], body["body"], kept)
            return httpx.Response(201, json=self._json(issue))
        number = int(path.removeprefix(base + "/").split("/")[0])
        issue = self.get(number)
        if path.endswith("/comments") and method == "POST":
            issue.comments.append(body["body"])
            return httpx.Response(201, json={"id": 1})
        if method == "PATCH":
            issue.title = body.get("title", issue.title)
            issue.body = body.get("body", issue.body)
            issue.state = body.get("state", issue.state)
            return httpx.Response(200, json=self._json(issue))
        return httpx.Response(404, json={"message": "Not Found"})

    def _list(self, request: httpx.Request) -> httpx.Response:
        assert request.url.params["state"] == "open"
        found = self.opened(request.url.params["labels"])
        page = int(request.url.params.get("page", "1"))
        shown = found[(page - 1) * PAGE : page * PAGE]
        headers = {}
        if page * PAGE < len(found):
            headers["Link"] = f'<{request.url.copy_set_param("page", page + 1)}>; rel="next"'
        return httpx.Response(200, json=[self._json(i) for i in shown], headers=headers)

    def _json(self, issue: FakeIssue) -> dict[str, Any]:
        out: dict[str, Any] = {"number": issue.number, "title": issue.title, "body": issue.body}
        out["labels"] = [{"name": name} for name in issue.labels]
        if issue.pull_request:
            out["pull_request"] = {"url": "..."}
        return out


class FakeGitLab(FakePlatform):
    def transport(self) -> httpx.MockTransport:
        return httpx.MockTransport(self.handle)

    def handle(self, request: httpx.Request) -> httpx.Response:
        if request.headers.get("PRIVATE-TOKEN") != self.token:
            return httpx.Response(401, json={"message": "401 Unauthorized"})
        path, method = request.url.path, request.method
        self.calls.append(f"{method} {path}")
        base = "/api/v4/projects/42/issues"
        body = json.loads(request.content) if request.content else {}
        if path == base and method == "GET":
            assert request.url.params["state"] == "opened"
            found = self.opened(request.url.params["labels"])
            page = int(request.url.params.get("page", "1"))
            headers = {"X-Next-Page": str(page + 1) if page * PAGE < len(found) else ""}
            shown = found[(page - 1) * PAGE : page * PAGE]
            return httpx.Response(200, json=[self._json(i) for i in shown], headers=headers)
        if path == base and method == "POST":
            issue = self.add(body["title"], body["description"], body["labels"].split(","))
            return httpx.Response(201, json=self._json(issue))
        number = int(path.removeprefix(base + "/").split("/")[0])
        issue = self.get(number)
        if path.endswith("/notes") and method == "POST":
            issue.comments.append(body["body"])
            return httpx.Response(201, json={"id": 1})
        if method == "PUT":
            issue.title = body.get("title", issue.title)
            issue.body = body.get("description", issue.body)
            if body.get("state_event") == "close":
                issue.state = "closed"
            return httpx.Response(200, json=self._json(issue))
        return httpx.Response(404, json={"message": "404 Not found"})

    def _json(self, issue: FakeIssue) -> dict[str, Any]:
        return {
            "iid": issue.number,
            "title": issue.title,
            "description": issue.body,
            "labels": issue.labels,
        }


@contextmanager
def served(platform: FakeGitHub | FakeGitLab) -> Iterator[str]:
    """The fake on a real socket (127.0.0.1, a free port), for the CI recipes, which run
    `reconciler drift-issue` as a process; yields its base URL."""

    class Handler(BaseHTTPRequestHandler):
        def _any(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            request = httpx.Request(
                self.command,
                f"http://127.0.0.1{self.path}",
                headers=dict(self.headers.items()),
                content=self.rfile.read(length),
            )
            response = platform.handle(request)
            self.send_response(response.status_code)
            for name, value in response.headers.items():
                if name.lower() not in ("content-length", "transfer-encoding", "connection"):
                    self.send_header(name, value)
            self.send_header("Content-Length", str(len(response.content)))
            self.end_headers()
            self.wfile.write(response.content)

        do_GET = do_POST = do_PATCH = do_PUT = _any

        def log_message(self, format: str, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join()
