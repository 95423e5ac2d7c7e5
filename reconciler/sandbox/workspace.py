"""The workspace service's employees (list, read, create, update, delete): what the
reconciler calls. The spec's desk, asset and booking lists are not served.

Every request carries `X-API-Key`. Employees have this field set (documented in
docs/sandbox.md); `id`, `createdAt` and `updatedAt` are the server's:

| field | type | notes |
|---|---|---|
| email | string | required, unique (case-insensitive) |
| firstName, lastName | string | required |
| department, jobTitle, location, phone, managerEmail | string or null | |
| startDate | `YYYY-MM-DD` or null | |
| active | bool | default true |

`PUT` replaces the whole record: omitted optional fields become null (`active` true).
Unknown fields are refused with 422, a duplicate e-mail with 409.
"""

from __future__ import annotations

import hmac
import json
import re
import secrets
from datetime import date
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from reconciler.sandbox.errors import HttpError
from reconciler.sandbox.state import SandboxState
from reconciler.sandbox.store import Record

EMPLOYEE_REQUIRED = ("email", "firstName", "lastName")
EMPLOYEE_OPTIONAL: dict[str, Any] = {
    "department": None,
    "jobTitle": None,
    "location": None,
    "phone": None,
    "managerEmail": None,
    "startDate": None,
    "active": True,
}
SERVER_FIELDS = ("id", "createdAt", "updatedAt")
EMPLOYEE_EMAIL = re.compile(r"^[^@\s]+@[^@\s]+\.[^@\s]+$")


async def dispatch_workspace(state: SandboxState, request: Request, rest: str) -> Response:
    _authenticate(state, request)
    segments = [s for s in rest.split("/") if s]
    if segments[:2] != ["api", "employees"] or len(segments) > 3:
        raise HttpError(404, f"No such route: /{rest}")
    return await _employees(state, request, segments[2] if len(segments) > 2 else None)


def _authenticate(state: SandboxState, request: Request) -> None:
    key = request.headers.get("x-api-key")
    if not key:
        raise HttpError(401, "Missing X-API-Key header")
    request.state.username = "api-key"
    if not any(hmac.compare_digest(k["key"], key) for k in state.store.rows("ws_api_keys")):
        raise HttpError(401, "Invalid API key")


async def _employees(state: SandboxState, request: Request, ident: str | None) -> Response:
    method = request.method
    if ident is None:
        if method == "GET":
            return _list(state, [_public(state, r) for r in state.store.rows("ws_employees")])
        if method == "POST":
            body = await _body(request)
            fields = _validated(state, body, existing_id=None)
            now = state.timestamp()
            rec = state.store.insert(
                "ws_employees",
                {
                    "public_id": secrets.token_hex(6),
                    "fields": fields,
                    "created": now,
                    "updated": now,
                },
            )
            return JSONResponse(_public(state, rec), status_code=201)
        raise HttpError(405, f"Method {method} is not allowed for /api/employees")
    rec = _find(state, ident)
    if method == "GET":
        return JSONResponse(_public(state, rec))
    if method == "PUT":
        body = await _body(request)
        fields = _validated(state, body, existing_id=rec["id"])
        rec = state.store.update(
            "ws_employees", rec["id"], fields=fields, updated=state.timestamp()
        )
        return JSONResponse(_public(state, rec))
    if method == "DELETE":
        state.store.delete("ws_employees", rec["id"])
        return Response(status_code=204)
    raise HttpError(405, f"Method {method} is not allowed for /api/employees/{{id}}")


async def _body(request: Request) -> dict[str, Any]:
    request.state.params = {"body": "<json>"}
    try:
        body = json.loads(await request.body())
    except ValueError:
        raise HttpError(400, "Request body must be a JSON object") from None
    if not isinstance(body, dict):
        raise HttpError(400, "Request body must be a JSON object")
    return body


def _validated(state: SandboxState, body: dict[str, Any], existing_id: int | None) -> Record:
    # The server's own fields may be echoed back by a client that PUTs what it read.
    body = {k: v for k, v in body.items() if k not in SERVER_FIELDS}
    problems: list[str] = []
    unknown = sorted(set(body) - set(EMPLOYEE_REQUIRED) - set(EMPLOYEE_OPTIONAL))
    if unknown:
        problems.append(f"unknown field(s): {', '.join(unknown)}")
    for name in EMPLOYEE_REQUIRED:
        value = body.get(name)
        if not isinstance(value, str) or not value.strip():
            problems.append(f"{name} is required and must be a non-empty string")
    email = body.get("email")
    if isinstance(email, str) and email.strip() and not EMPLOYEE_EMAIL.match(email.strip()):
        problems.append(f"email {email!r} is not a valid address")
    for name in ("department", "jobTitle", "location", "phone", "managerEmail", "startDate"):
        if body.get(name) is not None and not isinstance(body[name], str):
            problems.append(f"{name} must be a string or null")
    if isinstance(body.get("startDate"), str):
        try:
            date.fromisoformat(body["startDate"])
        except ValueError:
            problems.append("startDate must be a date YYYY-MM-DD")
    if "active" in body and not isinstance(body["active"], bool):
        problems.append("active must be true or false")
    if problems:
        raise HttpError(422, "; ".join(problems))
    assert isinstance(email, str)
    for other in state.store.rows("ws_employees"):
        same = other["fields"]["email"].casefold() == email.strip().casefold()
        if same and other["id"] != existing_id:
            raise HttpError(409, f"An employee with email {email} already exists")
    fields: Record = {name: body[name].strip() for name in EMPLOYEE_REQUIRED}
    fields.update(EMPLOYEE_OPTIONAL)
    fields.update({k: v for k, v in body.items() if k in EMPLOYEE_OPTIONAL})
    return fields


def _find(state: SandboxState, ident: str) -> Record:
    int_ids = state.config.quirk("workspace-int-ids")
    for rec in state.store.rows("ws_employees"):
        if (str(rec["id"]) if int_ids else rec["public_id"]) == ident:
            return rec
    raise HttpError(404, f"Employee {ident} not found")


def _public(state: SandboxState, rec: Record) -> dict[str, Any]:
    int_ids = state.config.quirk("workspace-int-ids")
    out = {"id": rec["id"] if int_ids else rec["public_id"], **rec["fields"]}
    if "created" in rec:  # a record a test stored directly may carry no times
        out["createdAt"] = rec["created"]
        out["updatedAt"] = rec["updated"]
    return out


def _list(state: SandboxState, items: list[dict[str, Any]]) -> Response:
    if state.config.quirk("workspace-envelope"):
        return JSONResponse({"data": items, "total": len(items)})
    return JSONResponse(items)
