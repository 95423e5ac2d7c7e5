"""Authentication of helpdesk calls: Basic and Bearer, the three-strike IP block."""

from __future__ import annotations

import base64
import binascii
import hmac

from starlette.requests import Request

from reconciler.sandbox.errors import HttpError
from reconciler.sandbox.records import hash_password
from reconciler.sandbox.state import SandboxState
from reconciler.sandbox.store import Record

REALM = "Helpdesk"


def client_ip(request: Request) -> str:
    return request.client.host if request.client else "unknown"


def authenticate(state: SandboxState, request: Request) -> Record:
    """Return the calling user or raise 401 (bad credentials) / 403 (blocked IP)."""
    ip = client_ip(request)
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
