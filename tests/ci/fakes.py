"""Stand-ins for the two code-hosting APIs the recipes post plans to, so that the posting
code runs for real without leaving the machine:

- `FakeGitLab`: the merge-request notes endpoints of GitLab's REST API (`GET /user`,
  paged `GET`, `POST`, `PUT` and `DELETE` .../merge_requests/IID/notes) on 127.0.0.1;
- `run_github_script`: the script of an `actions/github-script` step run by Node.js with
  the objects that action passes it (`github` backed by a list of comments, `context`,
  `core`, `require`), the way the action wraps it in an async function."""

from __future__ import annotations

import json
import shutil
import subprocess
import threading
import urllib.parse
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from types import TracebackType
from typing import Any

TOKEN = "glpat-test-token"
BOT_ID = 99


@dataclass
class FakeGitLab:
    project: int = 12
    merge_request: int = 7
    notes: list[dict[str, Any]] = field(default_factory=list)
    requests: list[tuple[str, str]] = field(default_factory=list)
    _server: ThreadingHTTPServer | None = None

    @property
    def api_url(self) -> str:
        assert self._server is not None
        return f"http://127.0.0.1:{self._server.server_address[1]}/api/v4"

    def add_note(self, body: str, author: int, system: bool = False) -> None:
        self.notes.append(
            {
                "id": max((n["id"] for n in self.notes), default=0) + 1,
                "body": body,
                "author": {"id": author},
                "system": system,
            }
        )

    def __enter__(self) -> FakeGitLab:
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:  # quiet
                pass

            def do_GET(self) -> None:
                fake._handle(self, "GET")

            def do_POST(self) -> None:
                fake._handle(self, "POST")

            def do_PUT(self) -> None:
                fake._handle(self, "PUT")

            def do_DELETE(self) -> None:
                fake._handle(self, "DELETE")

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()

    def _handle(self, handler: BaseHTTPRequestHandler, method: str) -> None:
        url = urllib.parse.urlsplit(handler.path)
        self.requests.append((method, url.path))
        if handler.headers.get("PRIVATE-TOKEN") != TOKEN:
            return _answer(handler, 401, {"message": "401 Unauthorized"})
        notes_path = f"/api/v4/projects/{self.project}/merge_requests/{self.merge_request}/notes"
        length = int(handler.headers.get("Content-Length") or 0)
        form = urllib.parse.parse_qs(handler.rfile.read(length).decode()) if length else {}
        if method == "GET" and url.path == "/api/v4/user":
            return _answer(handler, 200, {"id": BOT_ID, "username": "project_12_bot"})
        if method == "GET" and url.path == notes_path:
            query = urllib.parse.parse_qs(url.query)
            per_page, page = int(query["per_page"][0]), int(query.get("page", ["1"])[0])
            chunk = self.notes[(page - 1) * per_page : page * per_page]
            more = page * per_page < len(self.notes)
            return _answer(handler, 200, chunk, {"X-Next-Page": str(page + 1) if more else ""})
        if method == "POST" and url.path == notes_path:
            self.add_note(form["body"][0], BOT_ID)
            return _answer(handler, 201, self.notes[-1])
        if method == "PUT" and url.path.startswith(notes_path + "/"):
            ident = int(url.path.rsplit("/", 1)[1])
            note = next(n for n in self.notes if n["id"] == ident)
            if note["author"]["id"] != BOT_ID:
                return _answer(handler, 403, {"message": "403 Forbidden"})
            note["body"] = form["body"][0]
            return _answer(handler, 200, note)
        if method == "DELETE" and url.path.startswith(notes_path + "/"):
            ident = int(url.path.rsplit("/", 1)[1])
            found = [n for n in self.notes if n["id"] == ident]
            if not found or found[0]["author"]["id"] != BOT_ID:
                return _answer(handler, 403, {"message": "403 Forbidden"})
            self.notes.remove(found[0])
            handler.send_response(204)
            handler.end_headers()
            return None
        return _answer(handler, 404, {"message": "404 Not Found"})


def _answer(
    handler: BaseHTTPRequestHandler, status: int, data: Any, headers: dict[str, str] | None = None
) -> None:
    payload = json.dumps(data).encode()
    handler.send_response(status)
    handler.send_header("Content-Type", "application/json")
    handler.send_header("Content-Length", str(len(payload)))
    for name, value in (headers or {}).items():
        handler.send_header(name, value)
    handler.end_headers()
    handler.wfile.write(payload)


# -- actions/github-script ---------------------------------------------------------------

_HARNESS = r"""
const fs = require('fs');
const [scriptFile, stateFile] = process.argv.slice(2);
const state = JSON.parse(fs.readFileSync(stateFile, 'utf8'));
const log = [];
const ours = { owner: 'acme', repo: 'helpdesk-config', issue_number: 7 };
function check(params) {
  for (const [k, v] of Object.entries(ours)) {
    if (k in params && params[k] !== v) throw new Error(`wrong ${k}: ${params[k]}`);
  }
}
const issues = {
  listComments: async (params) => {
    check(params);
    const per = params.per_page || 30, page = params.page || 1;
    return { data: state.comments.slice((page - 1) * per, page * per) };
  },
  createComment: async (params) => {
    check(params);
    const comment = {
      id: 1000 + state.comments.length, body: params.body,
      user: { login: 'github-actions[bot]', type: 'Bot' },
      html_url: `https://github.com/acme/helpdesk-config/pull/7#c${state.comments.length}`,
    };
    state.comments.push(comment);
    log.push(['create', comment.id]);
    return { data: comment };
  },
  updateComment: async (params) => {
    check(params);
    const comment = state.comments.find((c) => c.id === params.comment_id);
    if (!comment || comment.user.type !== 'Bot') throw new Error('403: not our comment');
    comment.body = params.body;
    log.push(['update', comment.id]);
    return { data: comment };
  },
  deleteComment: async (params) => {
    check(params);
    const index = state.comments.findIndex((c) => c.id === params.comment_id);
    if (index < 0 || state.comments[index].user.type !== 'Bot') throw new Error('403: not ours');
    state.comments.splice(index, 1);
    log.push(['delete', params.comment_id]);
    return { data: {} };
  },
};
const github = {
  rest: { issues },
  paginate: async (method, params) => {
    const all = [];
    for (let page = 1; ; page++) {
      const { data } = await method({ ...params, page });
      all.push(...data);
      if (data.length < (params.per_page || 30)) return all;
    }
  },
};
const context = {
  repo: { owner: 'acme', repo: 'helpdesk-config' },
  issue: { owner: 'acme', repo: 'helpdesk-config', number: 7 },
  payload: { pull_request: { number: 7 } },
};
const core = { info: (m) => console.log(m), setFailed: (m) => { throw new Error(m); } };
const AsyncFunction = Object.getPrototypeOf(async function () {}).constructor;
const script = fs.readFileSync(scriptFile, 'utf8');
new AsyncFunction('require', 'github', 'context', 'core', script)(require, github, context, core)
  .then(() => {
    state.log = log;
    fs.writeFileSync(stateFile, JSON.stringify(state));
  })
  .catch((err) => { console.error(err); process.exit(1); });
"""


def node() -> str | None:
    return shutil.which("node")


def run_github_script(
    script: str, comments: list[dict[str, Any]], env: dict[str, str], workdir: Path
) -> tuple[subprocess.CompletedProcess[str], dict[str, Any]]:
    """Runs `script` as actions/github-script would; returns the process and the state
    afterwards: `comments` (as changed) and `log` (the writes, in order)."""
    harness = workdir / "harness.js"
    harness.write_text(_HARNESS, encoding="utf-8")
    script_file = workdir / "script.js"
    script_file.write_text(script, encoding="utf-8")
    state_file = workdir / "state.json"
    state_file.write_text(json.dumps({"comments": comments}), encoding="utf-8")
    node_path = node()
    assert node_path is not None
    result = subprocess.run(
        [node_path, str(harness), str(script_file), str(state_file)],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        stdin=subprocess.DEVNULL,
    )
    return result, json.loads(state_file.read_text(encoding="utf-8"))
