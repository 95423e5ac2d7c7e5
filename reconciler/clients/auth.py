"""Credentials of both services, built so that they cannot leak by accident.

A `Secret` shows `***` in `repr`, `str` and f-strings; only `reveal()` gives the value,
and only the header builders call it. Values that would make an invalid header are
refused up front, because the HTTP library's error would quote the header, secret and all.
Each credential, and the header value built from it, is registered with the masking
(masking.py) when the auth is made, so that no output shows it in any encoding, whatever
variable it came from.
"""

from __future__ import annotations

import base64
import re
from typing import Final

from reconciler import masking

REDACTED: Final = "***"
# Visible ASCII only: anything else cannot travel in a header without being mangled.
_HEADER_SAFE = re.compile(r"[\x21-\x7e]+")  # the whole value (`$` allows a final newline)


class Secret:
    __slots__ = ("_value",)

    def __init__(self, value: str) -> None:
        self._value = value

    def reveal(self) -> str:
        return self._value

    def __repr__(self) -> str:
        return REDACTED

    __str__ = __repr__

    def __format__(self, spec: str) -> str:
        return REDACTED

    def __bool__(self) -> bool:
        return bool(self._value)


def _reveal(value: str | Secret) -> str:
    return value.reveal() if isinstance(value, Secret) else value


class BasicAuth:
    """`Authorization: Basic base64(username:password)`; directory logins as `DOMAIN\\user`."""

    __slots__ = ("_header", "username")

    def __init__(self, username: str, password: str | Secret) -> None:
        if not username or ":" in username:
            raise ValueError("the helpdesk username must be non-empty and cannot contain ':'")
        self.username = username
        masking.register(_reveal(password))
        # Encoded once, not on every request; its base64 form is a secret too.
        token = base64.b64encode(f"{username}:{_reveal(password)}".encode()).decode("ascii")
        masking.register_basic(token)
        self._header = Secret("Basic " + token)

    def headers(self) -> dict[str, str]:
        return {"Authorization": self._header.reveal()}

    def __repr__(self) -> str:
        return f"BasicAuth(username={self.username!r}, password={REDACTED})"

    __str__ = __repr__


class _Token:
    """A header whose value is `prefix` and a token, checked and masked when made."""

    __slots__ = ("_token",)
    header = "Authorization"
    prefix = ""
    shown = REDACTED  # what the repr shows between its parentheses

    def __init__(self, token: str | Secret, what: str) -> None:
        value = _reveal(token)
        if not _HEADER_SAFE.fullmatch(value):
            raise ValueError(f"the {what} is empty or holds spaces or control characters")
        self._token = Secret(value)
        masking.register(value)

    def headers(self) -> dict[str, str]:
        return {self.header: self.prefix + self._token.reveal()}

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.shown})"

    __str__ = __repr__


class BearerAuth(_Token):
    """`Authorization: Bearer <token>`, the token of the user's `/User/Token` page."""

    __slots__ = ()
    prefix = "Bearer "
    shown = f"token={REDACTED}"

    def __init__(self, token: str | Secret) -> None:
        super().__init__(token, "helpdesk token")


HelpdeskAuth = BasicAuth | BearerAuth


class ApiKey(_Token):
    """The workspace service's `X-API-Key` header."""

    __slots__ = ()
    header = "X-API-Key"

    def __init__(self, key: str | Secret) -> None:
        super().__init__(key, "workspace API key")
