"""Request parameters as the helpdesk reads them: query string, url-encoded or multipart
form, or a JSON object body, with names matched case-insensitively (ASP.NET binding)."""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from starlette.datastructures import UploadFile
from starlette.requests import ClientDisconnect, Request

from reconciler.sandbox.errors import HttpError

_TRUE = {"true", "1", "on", "yes"}
_FALSE = {"false", "0", "off", "no"}
_SECRETS = ("password", "token", "secret", "apikey", "api_key")


class Params:
    def __init__(self, items: list[tuple[str, Any]], json_fields: tuple[str, ...] = ()) -> None:
        self._values: dict[str, list[Any]] = {}
        for key, value in items:
            self._values.setdefault(key.lower(), []).append(value)
        # The names that came from a JSON object body: endpoints that read only the query
        # string and form fields refuse them (`dispatch_helpdesk`).
        self.json_fields = json_fields

    @classmethod
    async def from_request(cls, request: Request) -> Params:
        items: list[tuple[str, Any]] = list(request.query_params.multi_items())
        json_fields: list[str] = []
        ctype = request.headers.get("content-type", "").lower()
        if request.method in ("POST", "PUT", "PATCH", "DELETE"):
            if "application/x-www-form-urlencoded" in ctype or "multipart/form-data" in ctype:
                try:
                    form = await request.form()
                except ClientDisconnect:
                    raise  # not a malformed body: the client left (app.py)
                except Exception as exc:  # malformed bodies are the caller's mistake
                    raise HttpError(400, f"Malformed form body: {exc}") from None
                items.extend(form.multi_items())
            else:
                from_json = _json_items(await request.body())
                json_fields = list(dict.fromkeys(key for key, _ in from_json))
                items.extend(from_json)
        # Some clients send Content-Type: application/json on GET with an empty body.
        return cls(items, tuple(json_fields))

    def items(self) -> list[tuple[str, Any]]:
        return [(k, v) for k, vs in self._values.items() for v in vs]

    def has(self, *names: str) -> bool:
        return any(n.lower() in self._values for n in names)

    def raw(self, *names: str) -> Any:
        for name in names:
            values = self._values.get(name.lower())
            if values:
                return values[-1]
        return None

    def text(self, *names: str, required: bool = False) -> str | None:
        value = self.raw(*names)
        if isinstance(value, UploadFile):
            value = None
        if value is None:
            if required:
                raise HttpError(400, f"Parameter '{names[0]}' is required")
            return None
        return str(value)

    def nonblank(self, name: str, *, required: bool = False) -> str:
        """A text parameter stripped, '' when absent; given but blank is 400: a name
        cannot be empty."""
        value = self.text(name, required=required)
        if value is not None and not value.strip():
            raise HttpError(400, f"Parameter '{name}' must not be empty")
        return (value or "").strip()

    def integer(self, *names: str, required: bool = False) -> int | None:
        value = self.text(*names, required=required)
        if value is None or value.strip() == "":
            if required:
                raise HttpError(400, f"Parameter '{names[0]}' is required")
            return None
        try:
            return int(value.strip())
        except ValueError:
            raise HttpError(
                400, f"Parameter '{names[0]}' must be an integer, got '{value}'"
            ) from None

    def positive(self, name: str) -> int | None:
        """An integer parameter of at least 1 (400 otherwise), None when absent."""
        value = self.integer(name)
        if value is not None and value < 1:
            raise HttpError(400, f"Parameter '{name}' must be at least 1, got {value}")
        return value

    def boolean(self, *names: str, default: bool | None = None) -> bool | None:
        value = self.text(*names)
        if value is None or value.strip() == "":
            return default
        lowered = value.strip().lower()
        if lowered in _TRUE:
            return True
        if lowered in _FALSE:
            return False
        raise HttpError(400, f"Parameter '{names[0]}' must be true or false, got '{value}'")


def redacted(items: Iterable[tuple[str, Any]]) -> dict[str, Any]:
    """Parameters for the request log: a repeated one (`?statusId=1&statusId=2`) keeps
    every value, as a list; secrets and files are replaced."""
    out: dict[str, list[Any]] = {}
    for key, value in items:
        secret = any(word in key.lower() for word in _SECRETS)
        shown = "<file>" if isinstance(value, UploadFile) else "***" if secret else value
        out.setdefault(key, []).append(shown)
    return {key: shown[0] if len(shown) == 1 else shown for key, shown in out.items()}


def _json_items(body: bytes) -> list[tuple[str, Any]]:
    if not body.strip():
        return []
    try:
        data = json.loads(body)
    except ValueError:
        return []  # not JSON: the service ignores bodies it cannot bind
    if not isinstance(data, dict):
        return []
    items: list[tuple[str, Any]] = []
    for key, value in data.items():
        for v in value if isinstance(value, list) else [value]:
            if isinstance(v, bool):
                items.append((key, "true" if v else "false"))
            elif isinstance(v, dict | list):
                items.append((key, json.dumps(v)))
            elif v is not None:
                items.append((key, str(v)))
    return items
