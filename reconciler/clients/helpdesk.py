"""The helpdesk API client (DESIGN §1, §3, §5; spec/helpdesk-api.md).

    async with HelpdeskClient("https://acme.example.com", BasicAuth("admin", pw)) as hd:
        companies = await hd.companies()
        new_id = created_id(await hd.request("POST", "Company", {"name": "Acme"},
                                             write=True, idempotent=True))

Every call first awaits one `POST /Authorization` (made once per client, however many
tasks call at the same time). A `401`/`403` anywhere ends the client: that call and every
later one raise `AuthenticationError` without sending anything, since each further failed
login brings the IP closer to the three-strike block. A read-only client (`plan`) raises
`ReadOnlyViolation` for any write before sending it.

The typed helpers return the API's JSON as it came (lists of dicts); turning it into live
objects is the business of `reconciler.resources`.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Mapping
from datetime import date, datetime
from typing import Any

import httpx

from reconciler.clients.auth import HelpdeskAuth
from reconciler.clients.base import DEFAULT_TIMEOUT, ClientBase
from reconciler.clients.parsing import RuleInfo, parse_body, parse_rule
from reconciler.clients.ratelimit import GENERAL, SEARCH, RateLimiter, RateLimits
from reconciler.clients.retry import RetryPolicy
from reconciler.errors import ApiError

USERS_PAGE_SIZE = 500  # the API's default `count`
ASSETS_PAGE_SIZE = 50  # fixed by the API
_SEARCH_ENDPOINTS = frozenset({"search", "userbyemail"})
_BODYLESS = frozenset({"GET", "HEAD", "DELETE"})

Params = Mapping[str, Any]


class HelpdeskClient(ClientBase):
    service = "helpdesk"
    example = "https://acme.jitbit.com or https://host/helpdesk"

    def __init__(
        self,
        base_url: str,
        auth: HelpdeskAuth,
        *,
        read_only: bool = False,
        limits: RateLimits = RateLimits(),  # noqa: B008 (frozen, shared safely)
        retry: RetryPolicy = RetryPolicy(),  # noqa: B008
        transport: httpx.AsyncBaseTransport | None = None,
        timeout: float | httpx.Timeout = DEFAULT_TIMEOUT,
        max_concurrency: int = 6,
        ca_file: str | None = None,
        users_page_size: int = USERS_PAGE_SIZE,
    ) -> None:
        if users_page_size < 1:
            raise ValueError("users_page_size must be at least 1")
        super().__init__(
            base_url,
            auth,
            read_only=read_only,
            retry=retry,
            transport=transport,
            timeout=timeout,
            max_concurrency=max_concurrency,
            ca_file=ca_file,
            limiter=RateLimiter(limits),
        )
        self.users_page_size = users_page_size
        self._auth_lock = asyncio.Lock()
        self.caller: dict[str, Any] | None = None  # the user `Authorization` returned

    async def authenticate(self) -> dict[str, Any]:
        """`POST /Authorization` once; the caller's user object. Later calls reuse it."""
        async with self._auth_lock:
            if self.caller is not None:
                return self.caller
            label = "/api/Authorization"
            try:
                response = await self._send(
                    "POST", "Authorization", label, write=False, idempotent=True
                )
            except ApiError as err:
                if err.status != 404:
                    raise
                raise self._wrong_base("POST", label) from None
            body = parse_body(response)
            if not isinstance(body, dict):
                raise ApiError(
                    response.status_code,
                    "POST",
                    label,
                    "the answer is not a user object: is the URL the helpdesk's base "
                    "(the part before /api)?",
                )
            self.caller = body
            return body

    async def request(
        self,
        method: str,
        path: str,
        params: Params | None = None,
        *,
        write: bool,
        idempotent: bool = True,
        bucket: str | None = None,
    ) -> Any:
        """Call `path` (relative to `/api`): parameters go in the query string for GET and
        as form fields otherwise (lists repeat, booleans are `true`/`false`, None is left
        out). Returns the parsed answer: JSON, or text (`OK`, XML)."""
        return parse_body(await self._request(method, path, params, write, idempotent, bucket))

    async def _request(
        self,
        method: str,
        path: str,
        params: Params | None,
        write: bool,
        idempotent: bool = True,
        bucket: str | None = None,
    ) -> httpx.Response:
        method = method.upper()
        relative = path.strip("/")
        label = f"/api/{relative}"
        self._refuse(method, label, write)
        await self.authenticate()
        if bucket is None:
            endpoint = relative.split("/", 1)[0].lower()
            bucket = SEARCH if endpoint in _SEARCH_ENDPOINTS else GENERAL
        fields = form_fields(params)
        bodyless = method in _BODYLESS
        return await self._send(
            method,
            relative,
            label,
            write=write,
            idempotent=idempotent,
            bucket=bucket,
            params=fields if bodyless else None,
            data=None if bodyless else fields,
        )

    # -- typed reads ----------------------------------------------------------------------

    async def companies(self) -> list[dict[str, Any]]:
        return await self._list("Companies")

    async def departments(self) -> list[dict[str, Any]]:
        return await self._list("Departments")

    async def categories(self) -> list[dict[str, Any]]:
        return await self._list("categories")

    async def techs_for_category(self, category_id: int) -> list[dict[str, Any]]:
        return await self._list("TechsForCategory", {"id": category_id})

    async def custom_fields(self, usage_type: int) -> list[dict[str, Any]]:
        """Field definitions; `usage_type` 1 tickets, 2 assets, 3 users, 4 companies."""
        return await self._list("CustomFields", {"type": usage_type})

    async def company_custom_fields(self, company_id: int) -> list[dict[str, Any]]:
        return await self._list("CompanyCustomFields", {"id": company_id})

    async def user_custom_fields(self, user_id: int) -> list[dict[str, Any]]:
        return await self._list("UserCustomFields", {"id": user_id})

    async def user(self, user_id: int) -> dict[str, Any]:
        body = await self.request("GET", "User", {"userId": user_id}, write=False)
        if not isinstance(body, dict):
            raise ApiError(None, "GET", "/api/User", f"expected a user object, got {_kind(body)}")
        return body

    async def user_by_username(self, username: str) -> dict[str, Any] | None:
        """The user of that username (`UserByUsername`), or None: there is none (404)."""
        try:
            body = await self.request("GET", "UserByUsername", {"username": username}, write=False)
        except ApiError as err:
            if err.status == 404:
                return None
            raise
        return body if isinstance(body, dict) else None

    async def users(
        self, *, page_size: int | None = None, filters: Params | None = None
    ) -> list[dict[str, Any]]:
        """Every user (that the `Users` filters select: `listMode`, `companyId`,
        `departmentId`), page by page (`count`/`page`) until a short page."""
        size = page_size or self.users_page_size
        given = dict(filters or {})
        return await self._pages(
            "Users", lambda page: {**given, "count": size, "page": page}, size, "UserID"
        )

    async def assets(
        self, include_disabled: bool, *, company_id: int | None = None
    ) -> list[dict[str, Any]]:
        """Every asset (of one company: `assignedToCompanyId`), 50 a page, until a short
        page."""
        only = {} if company_id is None else {"assignedToCompanyId": company_id}

        def params(page: int) -> dict[str, Any]:
            return {**only, "page": page, "includeDisabled": include_disabled}

        return await self._pages("Assets", params, ASSETS_PAGE_SIZE, "ItemID")

    async def rule_xml(self, rule_id: int) -> str:
        """`GET /Rule/{id}`: the rule as the XML text it came in."""
        return (await self._request("GET", f"Rule/{int(rule_id)}", None, write=False)).text

    async def rule(self, rule_id: int) -> RuleInfo:
        return parse_rule(await self.rule_xml(rule_id), rule_id=rule_id)

    async def _list(self, path: str, params: Params | None = None) -> list[dict[str, Any]]:
        return list_of_objects(await self.request("GET", path, params, write=False), path)

    async def _pages(
        self,
        path: str,
        params_for: Callable[[int], Params],
        page_size: int,
        id_key: str,
    ) -> list[dict[str, Any]]:
        """Read pages until one is short. A page that brings nothing new also ends the
        loop, so a server that ignores `page` cannot keep us reading forever; objects that
        moved between pages while we read (a create elsewhere) are kept once."""
        items: list[dict[str, Any]] = []
        seen: set[str] = set()
        page = 1
        while True:
            batch = await self._list(path, params_for(page))
            fresh = [item for item in batch if _identity(item, id_key) not in seen]
            seen.update(_identity(item, id_key) for item in fresh)
            items.extend(fresh)
            if len(batch) < page_size or not fresh:
                return items
            page += 1


def form_fields(params: Params | None) -> dict[str, str | list[str]]:
    """Parameters as the API reads them: booleans `true`/`false`, dates ISO, lists
    repeated (`?categoryId=1&categoryId=2`), None left out."""
    fields: dict[str, str | list[str]] = {}
    for name, value in (params or {}).items():
        if value is None:
            continue
        if isinstance(value, list | tuple | set | frozenset):
            fields[name] = [_field(v) for v in value if v is not None]
        else:
            fields[name] = _field(value)
    return fields


def _field(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, datetime | date):
        return value.isoformat()
    return str(value)


def list_of_objects(body: Any, path: str) -> list[dict[str, Any]]:
    """The answer of a list endpoint: an array of objects (null counts as empty)."""
    if body is None:
        return []
    if isinstance(body, list) and all(isinstance(item, dict) for item in body):
        return body
    raise ApiError(None, "GET", f"/api/{path}", f"expected a list of objects, got {_kind(body)}")


def _identity(item: dict[str, Any], id_key: str) -> str:
    for key, value in item.items():
        if key.lower() == id_key.lower() and value is not None:
            return f"id:{value}"
    return "object:" + json.dumps(item, sort_keys=True, default=str)


def _kind(body: Any) -> str:
    if isinstance(body, str):
        return "text: " + (body[:80] + "…" if len(body) > 80 else body)
    return type(body).__name__
