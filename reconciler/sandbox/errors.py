"""The one exception the sandbox handlers raise: an HTTP answer with a plain-text body."""

from __future__ import annotations


class HttpError(Exception):
    def __init__(self, status: int, message: str, headers: dict[str, str] | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.headers = headers or {}


def not_found(what: str) -> HttpError:
    return HttpError(404, f"{what} not found")


class ConnectionDropped(Exception):
    """Raised after a write was applied, to drop the connection before the answer."""
