"""Route a `/helpdesk/api/...` request to its registered handler."""

from __future__ import annotations

import asyncio
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, Response

from reconciler.sandbox.errors import HttpError
from reconciler.sandbox.helpdesk import load_endpoints
from reconciler.sandbox.helpdesk.auth import authenticate
from reconciler.sandbox.helpdesk.registry import ENDPOINTS, OK, Ctx, Permission
from reconciler.sandbox.params import Params
from reconciler.sandbox.state import SandboxState

load_endpoints()


async def dispatch_helpdesk(state: SandboxState, request: Request, rest: str) -> Response:
    segments = [s for s in rest.split("/") if s]
    # ASP.NET matches paths case-insensitively, `/API/users` included.
    if len(segments) < 2 or segments[0].lower() != "api":
        raise HttpError(404, f"No such endpoint: /{rest}")
    name, arg = segments[1], "/".join(segments[2:]) or None
    by_method = ENDPOINTS.get(name.lower())
    if by_method is None:
        raise HttpError(404, f"No such endpoint: /api/{name}")
    ep = by_method.get(request.method)
    if ep is None:
        raise HttpError(405, f"Method {request.method} is not allowed for /api/{name}")

    caller = authenticate(state, request)
    request.state.username = caller["username"]
    await _rate_limit(state, caller, ep.bucket)
    if ep.permission is Permission.ADMIN and not caller["is_admin"]:
        raise HttpError(403, "Access denied: administrator permission required")
    if ep.permission is Permission.TECH and not (caller["is_tech"] or caller["is_admin"]):
        raise HttpError(403, "Access denied: technician permission required")

    params = await Params.from_request(request)
    request.state.params = params.redacted()
    if ep.form_only and params.json_fields:
        # The real service binds these parameters from the query string and the form
        # only: a JSON body's fields never arrive (a required one is "missing", an
        # optional one is dropped without a word). Both are refused here, so that a client
        # sending JSON learns it at once instead of losing fields silently.
        raise HttpError(
            400,
            f"/api/{name} reads query-string or form fields, not a JSON body; "
            f"not read: {', '.join(params.json_fields)}",
        )
    result = await ep.handler(Ctx(state, request, params, caller, arg))
    return to_response(result)


async def _rate_limit(state: SandboxState, caller: dict[str, Any], bucket: str) -> None:
    cfg = state.config
    # UserByEmail (with the service's Search) has its own 60 a minute and is a call like
    # any other, so it counts in the general 90 as well (the spec's "most calls" names no
    # exception).
    limits = {"general": cfg.rate_limit}
    if bucket == "search":
        limits["search"] = cfg.search_rate_limit
    key = f"user:{caller['id']}"
    wait = state.limiter.acquire_all(key, limits)
    if not wait:
        return
    if cfg.quirk("throttle-slow"):
        # "An artificially slow response": hold the answer until the window frees.
        while wait:
            await asyncio.sleep(wait)
            wait = state.limiter.acquire_all(key, limits)
        return
    headers = {} if cfg.quirk("no-retry-after") else {"Retry-After": str(max(1, round(wait)))}
    raise HttpError(429, "API rate limit exceeded. Retry in a few minutes.", headers)


def to_response(result: Any) -> Response:
    if isinstance(result, Response):
        return result
    if result is OK:
        return PlainTextResponse("OK")
    return JSONResponse(result)
