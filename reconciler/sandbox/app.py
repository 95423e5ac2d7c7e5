"""The sandbox's ASGI application: the helpdesk under `/helpdesk`, the workspace service
under `/workspace`, and test-only routes under `/_sandbox`.

Every API request passes through `_serve_api`, which injects the configured faults, turns
`HttpError` into plain-text answers, and records the request (never its secrets) in the
log that `GET /_sandbox/requests` shows.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from dataclasses import asdict
from typing import Any

from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.middleware.gzip import GZipMiddleware
from starlette.requests import ClientDisconnect, Request
from starlette.responses import JSONResponse, PlainTextResponse, Response
from starlette.routing import Route
from starlette.types import ASGIApp, Receive, Scope, Send

from reconciler.sandbox.config import FaultConfig
from reconciler.sandbox.errors import ConnectionDropped, HttpError
from reconciler.sandbox.helpdesk import dispatch_helpdesk
from reconciler.sandbox.params import redacted
from reconciler.sandbox.state import SandboxState
from reconciler.sandbox.workspace import dispatch_workspace

ALL_METHODS = ["GET", "POST", "PUT", "DELETE", "PATCH"]
HELPDESK_PREFIX = "helpdesk"
Dispatch = Callable[[SandboxState, Request, str], Awaitable[Response]]


class DroppedResponse(Response):
    """Starts the answer, then fails: the server closes the connection mid-response, so
    the client never learns the outcome of a write that was applied."""

    def __init__(self) -> None:
        super().__init__(b"", status_code=200)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        await send(
            {
                "type": "http.response.start",
                "status": 200,
                "headers": [(b"content-length", b"1024"), (b"content-type", b"text/plain")],
            }
        )
        # Middleware (gzip) holds the start until a body chunk arrives: send a piece of one,
        # so the failure happens mid-response and the server cannot turn it into a 500.
        await send({"type": "http.response.body", "body": b"partial", "more_body": True})
        raise ConnectionDropped("connection dropped by the sandbox's fault injection")


class InstallPrefix:
    """The helpdesk's sub-directory matched in any case, as IIS matches a virtual directory
    (`/HelpDesk/api/Users` reaches `/helpdesk/api/Users`); the sandbox's own base URL
    spells it in lower case. The rest of the path is matched case-insensitively by the
    dispatcher, as ASP.NET does. The workspace service is not an IIS install: its paths
    are matched as written."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            head, sep, rest = scope["path"][1:].partition("/")
            if head != HELPDESK_PREFIX and head.lower() == HELPDESK_PREFIX:
                path = f"/{HELPDESK_PREFIX}{sep}{rest}"
                scope = {**scope, "path": path, "raw_path": path.encode()}
        await self.app(scope, receive, send)


def create_app(state: SandboxState) -> Starlette:
    def api(service: str, dispatch: Dispatch) -> Callable[[Request], Awaitable[Response]]:
        async def serve(request: Request) -> Response:
            return await _serve_api(state, request, service, dispatch)

        return serve

    async def requests_log(request: Request) -> Response:
        if request.method == "DELETE":
            state.requests.clear()
            return PlainTextResponse("OK")
        since = int(request.query_params.get("since", "0") or 0)
        return JSONResponse([r for r in state.requests if r["seq"] > since])

    async def faults(request: Request) -> Response:
        if request.method == "PUT":
            try:
                body = await request.json()
            except ValueError:
                return PlainTextResponse("the body must be JSON", status_code=400)
            try:
                cfg = FaultConfig(**body) if isinstance(body, dict) else FaultConfig.parse(body)
            except (TypeError, ValueError) as exc:
                return PlainTextResponse(str(exc), status_code=400)
            state.config.faults = cfg
            state.faults.configure(cfg)
        return JSONResponse(asdict(state.faults.config))

    async def limits(request: Request) -> Response:
        """Forget rate-limit windows and IP blocks (between test steps)."""
        state.limiter.reset()
        state.logins.reset()
        return PlainTextResponse("OK")

    async def index(request: Request) -> Response:
        base = str(request.base_url).rstrip("/")
        return JSONResponse(
            {
                "helpdesk_url": f"{base}/helpdesk",
                "workspace_url": f"{base}/workspace",
                "quirks": sorted(state.config.quirks),
            }
        )

    routes = [
        Route("/", index),
        Route("/helpdesk/{rest:path}", api("helpdesk", dispatch_helpdesk), methods=ALL_METHODS),
        Route("/workspace/{rest:path}", api("workspace", dispatch_workspace), methods=ALL_METHODS),
        Route("/_sandbox/requests", requests_log, methods=["GET", "DELETE"]),
        Route("/_sandbox/faults", faults, methods=["GET", "PUT"]),
        Route("/_sandbox/reset-limits", limits, methods=["POST"]),
    ]
    middleware = [Middleware(InstallPrefix), Middleware(GZipMiddleware, minimum_size=1000)]
    return Starlette(routes=routes, middleware=middleware)


async def _serve_api(
    state: SandboxState, request: Request, service: str, dispatch: Dispatch
) -> Response:
    started = time.perf_counter()
    writes_before = state.store.writes
    decision = state.faults.decide(is_write=request.method != "GET")
    response: Response
    try:
        if decision.throttled_for:
            response = PlainTextResponse(
                "API rate limit exceeded. Retry in a few minutes.",
                status_code=429,
                headers={"Retry-After": str(max(1, round(decision.throttled_for)))},
            )
        elif decision.error:
            response = PlainTextResponse("Internal server error (injected)", status_code=500)
        else:
            if decision.delay:
                await asyncio.sleep(decision.delay)
            response = await _dispatch(state, request, service, dispatch)
            # A write through GET (`/DisableRule/5`) counts too: what matters
            # is whether the store changed.
            if decision.drop and state.store.writes != writes_before:
                _log(state, request, service, "dropped", started)
                return DroppedResponse()
    except ClientDisconnect:
        # The client gave up (a timeout under the `slow` fault): nobody to answer, and
        # nothing wrong with the sandbox, so no traceback.
        _log(state, request, service, "disconnected", started)
        return Response(status_code=499)
    except Exception:
        _log(state, request, service, 500, started)
        raise
    _log(state, request, service, response.status_code, started)
    return response


async def _dispatch(
    state: SandboxState, request: Request, service: str, dispatch: Dispatch
) -> Response:
    rest = request.path_params["rest"]
    try:
        return await dispatch(state, request, rest)
    except HttpError as err:
        if service == "workspace":
            return JSONResponse(
                {"error": err.message, "status": err.status},
                status_code=err.status,
                headers=err.headers,
            )
        return PlainTextResponse(err.message, status_code=err.status, headers=err.headers)


def _log(
    state: SandboxState, request: Request, service: str, status: int | str, started: float
) -> None:
    entry: dict[str, Any] = {
        "time": state.timestamp(),
        "service": service,
        "method": request.method,
        "path": request.url.path,
        "query": redacted(request.query_params.multi_items()),
        "params": getattr(request.state, "params", None),
        "user": getattr(request.state, "username", None),
        "status": status,
        "ms": round((time.perf_counter() - started) * 1000, 2),
    }
    state.log_request(entry)
