"""The helpdesk API: each area's module registers its endpoints (`registry.py`), and
`dispatch_helpdesk` routes a `/helpdesk/api/...` request to one, after authentication
(Basic and Bearer, the three-strike IP block) and the rate limit."""

from __future__ import annotations

import asyncio
import base64
import binascii
import hmac
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, Response

from reconciler.sandbox.errors import HttpError
from reconciler.sandbox.helpdesk import assets, categories, companies, custom_fields, rules, users
from reconciler.sandbox.helpdesk.registry import ENDPOINTS, OK, Ctx, Permission
from reconciler.sandbox.params import Params, redacted
from reconciler.sandbox.records import hash_password
from reconciler.sandbox.state import SandboxState
from reconciler.sandbox.store import Record

# Each area registers its endpoints (`@endpoint`) when imported: these are all of them.
AREAS = (assets, categories, companies, custom_fields, rules, users)
REALM = "Helpdesk"


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
    request.state.params = redacted(params.items())
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
    result = await ep.handler(Ctx(state, params, caller, arg))
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


def authenticate(state: SandboxState, request: Request) -> Record:
    """Return the calling user or raise 401 (bad credentials) / 403 (blocked IP)."""
    ip = request.client.host if request.client else "unknown"
    blocked = state.logins.blocked_for(ip)
    if blocked:
        raise HttpError(
            403,
            f"Your IP address is blocked for {blocked} seconds after too many failed logins",
            {"Retry-After": str(blocked)},
        )
    header = request.headers.get("authorization", "")
    scheme, _, value = header.partition(" ")
    user: Record | None = None
    if scheme.lower() == "basic":
        user = _basic_user(state, value.strip())
    elif scheme.lower() == "bearer":
        token = value.strip()
        user = next(
            (u for u in state.store.rows("users") if hmac.compare_digest(u["token"], token)),
            None,
        )
    else:
        # No credentials at all is not a failed login: nothing was tried.
        raise HttpError(401, "Authentication required (Basic or Bearer)", challenge())
    if user is None or user["disabled"]:
        state.logins.failed(ip)
        bearer = scheme.lower() == "bearer"
        raise HttpError(401, "Invalid username, password or token", challenge(bearer))
    state.logins.succeeded(ip)
    return user


def challenge(bad_token: bool = False) -> dict[str, str]:
    """The `WWW-Authenticate` header of a 401 (RFC 7235: a 401 must carry one): Basic, the
    scheme an IIS install announces; for a rejected Bearer token, RFC 6750's answer."""
    if bad_token:
        return {"WWW-Authenticate": f'Bearer realm="{REALM}", error="invalid_token"'}
    return {"WWW-Authenticate": f'Basic realm="{REALM}", charset="UTF-8"'}


def _basic_user(state: SandboxState, encoded: str) -> Record | None:
    try:
        decoded = base64.b64decode(encoded, validate=True).decode("utf-8")
    except (binascii.Error, UnicodeDecodeError):
        return None
    username, sep, password = decoded.partition(":")
    if not sep:
        return None
    user = state.store.find_name("users", username, "username")
    if user is None and "\\" in username:
        # Directory logins arrive as DOMAIN\username.
        user = state.store.find_name("users", username.split("\\", 1)[1], "username")
    if user is None or not hmac.compare_digest(user["password_hash"], hash_password(password)):
        return None
    return user
