"""CPU per request of building and sending the API clients' requests: httpx's own
`AsyncClient.build_request` and `send` against the clients' (reconciler/clients/fastpath.py,
issue 25), on the same client, in the same run, for the shapes the clients send. No
network: the transport hands back an answer as reconciler's transport does (its bytes,
not yet read), so only the client-side layers are measured.

    python benchmarks/request_cpu.py [--repeat 5] [--requests 20000]
"""

from __future__ import annotations

import argparse
import asyncio
import time
from collections.abc import Callable
from functools import partial
from typing import Any

import httpx

from reconciler.clients.base import new_http_client
from reconciler.clients.urls import FORM

AUTH = {"Authorization": "Basic YWRtaW46c2VjcmV0"}
ANSWER = b'{"id": 123, "name": "Acme"}'

FORM_HEADERS = {**AUTH, "Content-Type": FORM}
SHAPES: dict[str, tuple[str, str, bytes | None, dict[str, Any] | None, dict[str, str]]] = {
    "POST form (a create)": ("POST", "Company", b"name=Acme+12&notes=x", None, FORM_HEADERS),
    "GET with parameters (a page)": ("GET", "Users", None, {"page": 2, "count": 500}, AUTH),
    "GET (an object)": ("GET", "Rule/5", None, None, AUTH),
}


def answer(request: httpx.Request) -> httpx.Response:
    headers = [(b"Content-Type", b"application/json"), (b"Content-Length", b"%d" % len(ANSWER))]
    return httpx.Response(200, headers=headers, stream=httpx.ByteStream(ANSWER))


def per_call(call: Callable[[], Any], requests: int, repeat: int) -> float:
    """The least CPU per call (µs) over `repeat` rounds of `requests` calls."""
    best = float("inf")
    for _ in range(repeat):
        began = time.process_time()
        for _ in range(requests):
            call()
        best = min(best, time.process_time() - began)
    return best / requests * 1e6


def per_send(send: Callable[[httpx.Request], Any], request: httpx.Request, requests: int,
             repeat: int) -> float:  # fmt: skip
    """The least CPU per `send(request)` (µs), `requests` of them in one event loop run."""

    async def run() -> float:
        began = time.process_time()
        for _ in range(requests):
            await send(request)
        return time.process_time() - began

    return min(asyncio.run(run()) for _ in range(repeat)) / requests * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--requests", type=int, default=20000)
    options = parser.parse_args()
    http = new_http_client(
        "http://127.0.0.1:8765/helpdesk/api/", httpx.MockTransport(answer), 30.0, max_connections=10
    )
    count, repeat = options.requests, options.repeat
    print(f"CPU per request, best of {repeat} x {count}, in µs: httpx's / the clients' own")
    totals = [0.0, 0.0]
    for name, (method, path, body, params, headers) in SHAPES.items():
        url = httpx.AsyncClient.build_request(http, "GET", path).url
        args = (method, url)
        options_ = {"content": body, "params": params, "headers": headers}
        built = per_call(partial(httpx.AsyncClient.build_request, http, *args, **options_),
                         count, repeat)  # fmt: skip
        cheap = per_call(partial(http.build_request, *args, **options_), count, repeat)
        request = http.build_request(*args, **options_)
        sent = per_send(partial(httpx.AsyncClient.send, http), request, count, repeat)
        direct = per_send(http.send, request, count, repeat)
        totals[0] += built + sent
        totals[1] += cheap + direct
        print(f"  {name:30s} build {built:6.1f} / {cheap:5.1f}   send and read {sent:6.1f} / "
              f"{direct:5.1f}   both {built + sent:6.1f} / {cheap + direct:5.1f}")  # fmt: skip
    mean = [total / len(SHAPES) for total in totals]
    print(
        f"  mean of the shapes: {mean[0]:.1f} / {mean[1]:.1f} µs per request, "
        f"{mean[0] - mean[1]:.1f} µs less ({1 - mean[1] / mean[0]:.0%})"
    )
    print("  (the answer: 27 bytes of JSON, as reconciler's transport hands it back unread)")


if __name__ == "__main__":
    main()
