"""The API base address of a service (the configured base with `/api/` appended), and
the one form of a service's address that two spellings of it share (`service_address`)."""

from __future__ import annotations

import ipaddress
import re
from urllib.parse import unquote

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


# Services whose paths the server matches ignoring case (the helpdesk is ASP.NET).
CASE_INSENSITIVE_PATHS = frozenset({"helpdesk"})
_LOOPBACK = "localhost"
_DEFAULT_PORTS = {"http": 80, "https": 443}


def service_address(url: str, service: str = "") -> str:
    """One service's address however it is spelled: `http://localhost:8080/helpdesk` for
    `HTTP://127.0.0.1:8080/HelpDesk/`. The scheme, the host in lower case, the default
    port left out, the loopback names (`localhost`, `127.0.0.1`, `::1`) as one,
    percent-encoding and repeated or trailing slashes undone; for a `service` that
    matches paths ignoring case (the helpdesk is ASP.NET), the path in lower case. The
    apply lock is keyed on it, and the wrong-tenant guard compares with it. An address
    that does not parse is returned stripped: the client refuses it clearly."""
    try:
        parsed = httpx.URL(url.strip())
    except (httpx.InvalidURL, TypeError, ValueError):
        return url.strip()
    host = (parsed.host or "").rstrip(".").lower()
    if _is_loopback(host):
        host = _LOOPBACK
    elif ":" in host:
        host = f"[{host}]"
    port = parsed.port if parsed.port not in (None, _DEFAULT_PORTS.get(parsed.scheme)) else None
    path = re.sub("/+", "/", unquote(parsed.path)).rstrip("/")
    if service in CASE_INSENSITIVE_PATHS:
        path = path.lower()
    return f"{parsed.scheme}://{host}{f':{port}' if port else ''}{path}"


def _is_loopback(host: str) -> bool:
    if host == _LOOPBACK:
        return True
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return False
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        address = address.ipv4_mapped
    return address in (ipaddress.ip_address("127.0.0.1"), ipaddress.ip_address("::1"))
