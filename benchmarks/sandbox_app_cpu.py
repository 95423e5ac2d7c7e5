"""The sandbox application's own CPU per request, in process, without the server (issue 25).

First `reconciler apply --parallelism 10` bootstraps the generated tenant of client_cpu.py
(apply_bench's: 1,100 objects, 1,700 writes) into a sandbox process, no latency, and the
requests it sent are read back from the sandbox's request log. Then each round replays
those requests, in order, into a fresh in-process sandbox (the same seed) straight through
its ASGI application (`create_app`), as uvicorn hands them over (a url-encoded form, the
Basic credentials, httpx's default headers), and takes the CPU time (`time.process_time`)
of the whole replay; every answer must have the status the real run got. The figure is
the minimum over `--repeat` rounds: CPU per request of the application (routing,
middleware, parameters, authentication, the handler, the store, the request log, the
answer), not of uvicorn's protocol or the event loop.

    python benchmarks/sandbox_app_cpu.py [--repeat 7] [--profile FILE]
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import cProfile
import io
import json
import pstats
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

sys.path.insert(0, str(Path(__file__).resolve().parent))

from apply_bench import write_tenant
from client_cpu import child, sandbox_args
from processes import compile_package

from reconciler.sandbox.app import create_app
from reconciler.sandbox.embedded import seed_path
from reconciler.sandbox.process import SandboxProcess
from reconciler.sandbox.serve import build_config, open_state

Request = tuple[str, str, bytes, bytes, int]  # method, path, query, body, status


def recorded_requests(tenant: Path, root: Path) -> list[Request]:
    """The requests a real `apply` sends, from the sandbox's request log."""
    db, log = root / "record.db", root / "record.jsonl"
    with SandboxProcess(db, *sandbox_args()) as sandbox:
        args = ["apply", str(tenant), "--yes", "--rate-limit", "0", "--search-rate-limit", "0"]
        child([*args, "--parallelism", "10", "--log", str(log)], sandbox.env)
        with urllib.request.urlopen(f"{sandbox.url}/_sandbox/requests") as answer:
            entries = json.loads(answer.read())
    out: list[Request] = []
    for entry in entries:
        query = urlencode(entry["query"], doseq=True).encode()
        params = {k: v for k, v in (entry["params"] or {}).items() if k not in entry["query"]}
        body = urlencode(params, doseq=True).encode() if entry["method"] != "GET" else b""
        out.append((entry["method"], entry["path"], query, body, int(entry["status"])))
    return out


def replay(requests: list[Request], username: str, password: str, app: Any) -> float:
    auth = b"Basic " + base64.b64encode(f"{username}:{password}".encode())
    common = [
        (b"host", b"127.0.0.1:8080"),
        (b"accept", b"*/*"),
        (b"accept-encoding", b"gzip, deflate"),
        (b"connection", b"keep-alive"),
        (b"user-agent", b"reconciler/bench"),
        (b"authorization", auth),
    ]

    async def one(method: str, path: str, query: bytes, body: bytes) -> int:
        headers = list(common)
        if method != "GET":
            headers += [
                (b"content-type", b"application/x-www-form-urlencoded"),
                (b"content-length", str(len(body)).encode()),
            ]
        scope = {
            "type": "http", "asgi": {"version": "3.0", "spec_version": "2.3"},
            "http_version": "1.1", "server": ("127.0.0.1", 8080), "client": ("127.0.0.1", 50000),
            "scheme": "http", "method": method, "root_path": "", "path": path,
            "raw_path": path.encode(), "query_string": query, "headers": headers, "state": {},
        }  # fmt: skip
        sent: list[dict[str, Any]] = []

        async def receive() -> dict[str, Any]:
            return {"type": "http.request", "body": body, "more_body": False}

        async def send(message: dict[str, Any]) -> None:
            sent.append(message)

        await app(scope, receive, send)
        return int(sent[0]["status"])

    async def run() -> float:
        began = time.process_time()
        for method, path, query, body, status in requests:
            got = await one(method, path, query, body)
            assert got == status, (method, path, got, status)
        return time.process_time() - began

    return asyncio.run(run())


def fresh_app(root: Path, number: int) -> tuple[Any, str, str]:
    config = build_config((), "", 0, 0)
    state, creds, _ = open_state(root / f"replay{number}.db", seed_path("empty"), config)
    return create_app(state), creds.helpdesk_username, creds.helpdesk_password


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--profile", metavar="FILE", help="one round under cProfile (CPU)")
    parser.add_argument("--top", type=int, default=40)
    args = parser.parse_args()
    compile_package()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        tenant = root / "tenant"
        tenant.mkdir()
        write_tenant(tenant, 100, 500, 500)
        requests = recorded_requests(tenant, root)
        if args.profile:
            app, user, password = fresh_app(root, 0)
            profiler = cProfile.Profile(time.process_time)
            profiler.runcall(replay, requests, user, password, app)
            profiler.dump_stats(args.profile)
            text = io.StringIO()
            pstats.Stats(profiler, stream=text).sort_stats("cumulative").print_stats(args.top)
            print(text.getvalue())
            return
        cpu = []
        for number in range(args.repeat):
            app, user, password = fresh_app(root, number)
            cpu.append(replay(requests, user, password, app))
    best = min(cpu)
    print(f"sandbox application, in process: {len(requests)} requests of a real apply replayed")
    print(f"  CPU per round: {', '.join(f'{c:.3f}' for c in cpu)} s")
    print(f"  best: {best:.3f} s = {best / len(requests) * 1000:.3f} ms per request")


if __name__ == "__main__":
    main()
