"""The workspace API client (spec/workspace-api.md and the notes on similar products).

    async with WorkspaceClient("https://ws.example.com", api_key) as ws:
        for employee in await ws.employees():
            ...

Every request carries `X-API-Key`. Lists are accepted as a bare array or an envelope
(`{"data": [...], "total": N}`, `{"items": [...]}`, ...); `next` links are followed
(`next`, `links.next`, `meta.next`, `_links.next.href`) but only on the same origin, so
the key never travels to another host. Ids are opaque: kept exactly as the server gave
them, string or integer. Retries, `429` waits and the `401` rule are those of the
helpdesk client (`sender.py`); there is no client-side rate limit, the service publishes none.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

import httpx

from reconciler.clients.auth import ApiKey, Secret
from reconciler.clients.base import DEFAULT_TIMEOUT, ClientBase
from reconciler.clients.parsing import parse_body
from reconciler.clients.retry import RetryPolicy
from reconciler.errors import ApiError

_ITEM_KEYS = ("data", "items", "results", "records", "value", "employees")
_TOTAL_KEYS = ("total", "totalCount", "total_count")
EmployeeId = str | int


class WorkspaceClient(ClientBase):
    service = "workspace"
    example = "https://workspace.example.com"

    def __init__(
        self,
        base_url: str,
        api_key: str | Secret,
        *,
        read_only: bool = False,
        retry: RetryPolicy = RetryPolicy(),  # noqa: B008 (frozen, shared safely)
        transport: httpx.AsyncBaseTransport | None = None,
        timeout: float | httpx.Timeout = DEFAULT_TIMEOUT,
        max_concurrency: int = 6,
        ca_file: str | None = None,
    ) -> None:
        super().__init__(
            base_url,
            ApiKey(api_key),
            read_only=read_only,
            retry=retry,
            transport=transport,
            timeout=timeout,
            max_concurrency=max_concurrency,
            ca_file=ca_file,
        )
        self._reached = False  # a call has been answered: the base URL is right

    async def request(
        self,
        method: str,
        path: str,
        json_body: Any = None,
        *,
        write: bool,
        idempotent: bool = True,
    ) -> Any:
        """Call `path` (relative to `/api`) with an optional JSON body; the parsed answer
        (None for an empty one, such as a `204` after `DELETE`)."""
        response = await self._call(
            method, path.strip("/"), json_body, write=write, idempotent=idempotent
        )
        return parse_body(response) if response.content else None

    async def _call(
        self,
        method: str,
        url: str | httpx.URL,
        json_body: Any = None,
        *,
        write: bool,
        idempotent: bool = True,
    ) -> httpx.Response:
        method = method.upper()
        label = self._label(url)
        try:
            response = await self._send(
                method, url, label, write=write, idempotent=idempotent, json_body=json_body
            )
        except ApiError as err:
            if err.status == 404 and not self._reached:
                # The first call is a list: a 404 there means the base URL is wrong.
                raise self._wrong_base(method, label) from None
            raise
        self._reached = True
        return response

    def _label(self, url: str | httpx.URL) -> str:
        """The path shown in errors and counted in `calls_by_path`: `/api/employees`,
        with no query string."""
        if isinstance(url, str):
            return "/api/" + url.split("?", 1)[0]
        base = self._http.base_url.path  # ends with /api/
        path = url.path
        return "/api/" + path[len(base) :] if path.startswith(base) else path

    # -- typed calls ----------------------------------------------------------------------

    async def employees(self) -> list[dict[str, Any]]:
        return await self.list_all("employees")

    async def employee(self, employee_id: EmployeeId) -> dict[str, Any]:
        body = await self.request("GET", employee_path(employee_id), write=False)
        return _object(body, employee_path(employee_id))

    async def create_employee(self, fields: dict[str, Any]) -> dict[str, Any]:
        """`POST`: not idempotent, so a lost answer raises OutcomeUnknown (re-read first)."""
        body = await self.request("POST", "employees", fields, write=True, idempotent=False)
        return _object(body, "employees")

    async def update_employee(self, employee_id: EmployeeId, fields: dict[str, Any]) -> Any:
        """`PUT` replaces the whole record: send every field."""
        return await self.request("PUT", employee_path(employee_id), fields, write=True)

    async def delete_employee(self, employee_id: EmployeeId) -> None:
        await self.request("DELETE", employee_path(employee_id), write=True)

    async def list_all(self, path: str) -> list[dict[str, Any]]:
        """Every item of a list endpoint, following `next` links on the same origin."""
        url: httpx.URL = self._http.base_url.join(path.strip("/"))
        origin = _origin(url)
        items: list[dict[str, Any]] = []
        visited: set[str] = set()
        total: int | None = None
        while True:
            visited.add(str(url))
            response = await self._call("GET", url, write=False)
            page, next_link, page_total = list_page(parse_body(response), self._label(url))
            items.extend(page)
            total = page_total if page_total is not None else total
            if not next_link or not page:
                break
            try:
                url = response.url.join(next_link)
            except httpx.InvalidURL:  # a port that is not a number, an unclosed [
                raise ApiError(
                    None, "GET", self._label(url), "the list's next link is not a valid address"
                ) from None
            if _origin(url) != origin:
                raise ApiError(
                    None, "GET", self._label(url), "the list's next link leads to another host"
                )
            if str(url) in visited:
                raise ApiError(None, "GET", self._label(url), "the list's next link repeats a page")
        if total is not None and len(items) < total:
            # A partial list would make present employees look missing.
            raise ApiError(
                None,
                "GET",
                f"/api/{path.strip('/')}",
                f"the list says it has {total} items but gave {len(items)} and no next link",
            )
        return items


def employee_path(employee_id: EmployeeId) -> str:
    """`employees/{id}`, the opaque id quoted as a path segment."""
    return "employees/" + quote(str(employee_id), safe="")


def list_page(body: Any, label: str) -> tuple[list[dict[str, Any]], str | None, int | None]:
    """(items, next link, total) of one answer of a list endpoint."""
    if isinstance(body, list):
        return _objects(body, label), None, None
    if not isinstance(body, dict):
        raise ApiError(None, "GET", label, f"expected a list, got {type(body).__name__}")
    items = next((body[k] for k in _ITEM_KEYS if isinstance(body.get(k), list)), None)
    if items is None:
        raise ApiError(None, "GET", label, "the answer holds no list of items")
    raw_meta = body.get("meta")
    meta: dict[str, Any] = raw_meta if isinstance(raw_meta, dict) else {}
    return _objects(items, label), _next_link(body, meta), _total(body, meta)


def _next_link(body: dict[str, Any], meta: dict[str, Any]) -> str | None:
    links = body.get("links")
    hal = body.get("_links")
    candidates = [
        body.get("next"),
        links.get("next") if isinstance(links, dict) else None,
        meta.get("next"),
        hal.get("next") if isinstance(hal, dict) else None,
    ]
    if isinstance(links, list):  # [{"rel": "next", "href": "..."}]
        candidates += [
            link.get("href")
            for link in links
            if isinstance(link, dict) and link.get("rel") == "next"
        ]
    for candidate in candidates:
        if isinstance(candidate, dict):
            candidate = candidate.get("href")
        if isinstance(candidate, str) and candidate.strip():
            return candidate.strip()
    return None


def _total(body: dict[str, Any], meta: dict[str, Any]) -> int | None:
    for source in (body, meta):
        for key in _TOTAL_KEYS:
            value = source.get(key)
            if isinstance(value, int) and not isinstance(value, bool):
                return value
    return None


def _objects(items: list[Any], label: str) -> list[dict[str, Any]]:
    if not all(isinstance(item, dict) for item in items):
        raise ApiError(None, "GET", label, "the list holds items that are not objects")
    return items


def _object(body: Any, path: str) -> dict[str, Any]:
    if isinstance(body, dict) and isinstance(body.get("data"), dict) and "id" not in body:
        body = body["data"]  # some services wrap single objects too
    if not isinstance(body, dict):
        raise ApiError(
            None, "GET", f"/api/{path}", f"expected an object, got {type(body).__name__}"
        )
    return body


def _origin(url: httpx.URL) -> tuple[str, str, int | None]:
    return url.scheme, url.host, url.port
