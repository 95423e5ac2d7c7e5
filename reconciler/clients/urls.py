"""The API base address of a service: the configured base with `/api/` appended."""

from __future__ import annotations

import httpx

from reconciler.errors import UsageError


def api_base_url(base_url: str, service: str) -> httpx.URL:
    """`https://acme.example.com` -> `https://acme.example.com/api/`;
    `http://host/helpdesk/` -> `http://host/helpdesk/api/` (a sub-directory survives).

    Raises UsageError for an address that is not http(s) with a host, or that carries
    credentials, a query or a fragment; the message never repeats the address, since it
    may hold a password."""
    try:
        url = httpx.URL(base_url.strip())
    except (httpx.InvalidURL, TypeError):
        raise UsageError(f"the {service} URL is not a valid address") from None
    if url.scheme not in ("http", "https") or not url.host:
        raise UsageError(
            f"the {service} URL must start with http:// or https:// and name a host "
            "(for example https://acme.example.com or https://host/helpdesk)"
        )
    if url.userinfo:
        raise UsageError(
            f"the {service} URL must not carry credentials: give them in the environment"
        )
    if url.query or url.fragment:
        raise UsageError(f"the {service} URL must not carry a query string or a fragment")
    path = url.path.rstrip("/")
    return url.copy_with(path=f"{path}/api/")
