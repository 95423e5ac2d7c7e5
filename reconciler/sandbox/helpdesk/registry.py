"""Endpoint registry of the helpdesk sandbox.

Each module under `reconciler.sandbox.helpdesk` registers its handlers with `@endpoint`.
The dispatcher (`dispatch_helpdesk`) matches the endpoint name case-insensitively, checks the
method, authenticates, applies the rate limit and the permission level, then calls the
handler with a `Ctx`. A handler returns JSON-able data, `OK`, or a starlette `Response`,
and raises `HttpError` for error answers.
"""

from __future__ import annotations

import enum
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from reconciler.sandbox.errors import HttpError, not_found
from reconciler.sandbox.params import Params
from reconciler.sandbox.state import SandboxState
from reconciler.sandbox.store import Record, Store


class Permission(enum.Enum):
    ANY = "user"
    TECH = "technician"
    ADMIN = "administrator"


class _Ok:
    """The plain `200 OK` answer of write operations that return no data."""


OK = _Ok()


@dataclass
class Ctx:
    state: SandboxState
    params: Params
    caller: Record
    arg: str | None = None  # the path segment after the name: /Rule/{id}

    @property
    def store(self) -> Store:
        return self.state.store

    @property
    def is_tech(self) -> bool:
        return bool(self.caller["is_tech"] or self.caller["is_admin"])

    def quirk(self, name: str) -> bool:
        return self.state.config.quirk(name)

    def id_param(self, *names: str) -> int:
        """An id from the path (`/Rule/5`) or from the named parameters."""
        if self.arg:
            try:
                return int(self.arg)
            except ValueError:
                raise HttpError(400, f"'{self.arg}' is not a valid id") from None
        value = self.params.integer(*names, required=True)
        assert value is not None
        return value

    def record_of(self, param: str, table: str, what: str) -> Record:
        """The record whose id the (required) parameter `param` gives."""
        rid = self.params.integer(param, required=True)
        assert rid is not None
        return self.record(table, rid, what)

    def record(self, table: str, rid: int, what: str) -> Record:
        rec = self.store.get(table, rid)
        if rec is None:
            raise not_found(f"{what} {rid}")
        return rec


Handler = Callable[[Ctx], Awaitable[Any]]


@dataclass(frozen=True)
class Endpoint:
    name: str
    method: str
    handler: Handler
    permission: Permission
    bucket: str  # "general" or "search": the rate-limit bucket
    form_only: bool  # reads the query string and form fields, never a JSON body


ENDPOINTS: dict[str, dict[str, Endpoint]] = {}


def endpoint(
    name: str,
    methods: tuple[str, ...] = ("GET",),
    permission: Permission = Permission.ANY,
    bucket: str = "general",
    form_only: bool = False,
) -> Callable[[Handler], Handler]:
    """Register a handler under a name, for each of `methods`.

    `form_only`: the configuration writes (companies, categories, users, assets, category
    permissions). The spec says JSON bodies are not the supported form and only "a few
    frequently used operations" tolerate them; these are not among them (`dispatch_helpdesk`)."""

    def register(handler: Handler) -> Handler:
        by_method = ENDPOINTS.setdefault(name.lower(), {})
        for method in methods:
            if method in by_method:
                raise RuntimeError(f"endpoint {method} {name} registered twice")
            by_method[method] = Endpoint(name, method, handler, permission, bucket, form_only)
        return handler

    return register
