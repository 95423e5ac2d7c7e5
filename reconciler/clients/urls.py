"""The API base address of a service (the configured base with `/api/` appended), and
the one form of a service's address that two spellings of it share (`service_address`)."""

from __future__ import annotations

import ipaddress
import re
import socket
from urllib.parse import unquote

import httpx

from reconciler.errors import UsageError


def api_base_url(base_url: str, service: str) -> httpx.URL:
    """`https://acme.example.com` -> `https://acme.example.com/api/`;
    `http://host/helpdesk/` -> `http://host/helpdesk/api/` (a sub-directory survives).

    Raises UsageError for an address that is not http(s) with a host, or that carries
    credentials, an encoded control character (`%0d`, `%00`), a query or a fragment; the
    message never repeats the address, since it may hold a password."""
    try:
        url = httpx.URL(base_url.strip())
    except (httpx.InvalidURL, TypeError):
        raise UsageError(f"the {service} URL is not a valid address") from None
    control = _CONTROL.search(unquote(str(url)))
    if control is not None:
        raise UsageError(
            f"the {service} URL holds a control character ({control.group()!r}, "
            "percent-encoded or not): check how the variable or flag is set"
        )
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
    try:
        return url.copy_with(path=f"{path}/api/")
    except httpx.InvalidURL:
        raise UsageError(f"the {service} URL is not a valid address") from None


_CONTROL = re.compile(r"[\x00-\x1f\x7f]")


def refuse_cleartext(base_url: str, service: str, *, allowed: bool) -> None:
    """Credentials travel in every request: over `http://` they cross the network in
    clear text. Refused (UsageError naming https) unless the host is loopback, where they
    never leave the machine, or the user allowed it (`--allow-http`, `allow_http: true`)."""
    try:
        url = httpx.URL(base_url.strip())
    except (httpx.InvalidURL, TypeError):
        return  # api_base_url refuses it, naming the service
    if allowed or url.scheme != "http" or _loopback(url.host.rstrip(".").lower()) is not None:
        return
    raise UsageError(
        f"the {service} URL uses http:// to {url.host}, which is not loopback: the "
        "credentials would cross the network unencrypted. Use https://, or give "
        "--allow-http (allow_http: true for the environment in reconciler.yaml) to send "
        "them in clear text anyway"
    )


def has_userinfo(url: str) -> bool:
    """Whether `url` carries a user name or password before its host (`user:pw@host`)."""
    try:
        return bool(httpx.URL(url.strip()).userinfo)
    except (httpx.InvalidURL, TypeError):
        return "@" in url.split("//", 1)[-1].split("/", 1)[0]


# Services whose paths the server matches ignoring case (the helpdesk is ASP.NET).
CASE_INSENSITIVE_PATHS = frozenset({"helpdesk"})
_LOOPBACK = "localhost"
_DEFAULT_PORTS = {"http": 80, "https": 443}


def service_address(url: str, service: str = "") -> str:
    """One service's address however it is spelled: `http://localhost:8080/helpdesk` for
    `HTTP://127.0.0.1:8080/HelpDesk/`. The scheme, the host in lower case, the default
    port left out, the loopback names (`localhost`, `127.0.0.1`, `::1`) as one,
    percent-encoding and repeated or trailing slashes undone; an address written in
    another notation (`127.1`, `2130706433`, `0x7f.1`) as the OS reads it (`localhost`
    for those); for a `service` that
    matches paths ignoring case (the helpdesk is ASP.NET), the path in lower case. The
    apply lock is keyed on it, and the wrong-tenant guard compares with it. An address
    that does not parse is returned stripped: the client refuses it clearly."""
    try:
        parsed = httpx.URL(url.strip())
    except (httpx.InvalidURL, TypeError, ValueError):
        return url.strip()
    host = (parsed.host or "").rstrip(".").lower()
    address = _address(host)
    if _loopback(host) in _LOCAL_ADDRESSES:
        host = _LOOPBACK
    elif ":" in host:
        host = f"[{host}]"
    elif address is not None:
        host = str(address)
    port = parsed.port if parsed.port not in (None, _DEFAULT_PORTS.get(parsed.scheme)) else None
    path = re.sub("/+", "/", unquote(parsed.path)).rstrip("/")
    if service in CASE_INSENSITIVE_PATHS:
        path = path.lower()
    return f"{parsed.scheme}://{host}{f':{port}' if port else ''}{path}"


# `localhost`, 127.0.0.1 or ::1 however written: the addresses a service started "on
# localhost" listens on, one helpdesk. (127.0.0.2 is another address: a server may listen
# on it alone.)
_LOCAL_ADDRESSES = (ipaddress.ip_address("127.0.0.1"), ipaddress.ip_address("::1"))


def _loopback(host: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    """The loopback address `host` names (`localhost`: 127.0.0.1), else None. Host names
    other than `localhost` are not looked up: a lookup depends on the machine and may
    name many addresses."""
    address = _LOCAL_ADDRESSES[0] if host == _LOOPBACK else _address(host)
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        address = address.ipv4_mapped
    return address if address is not None and address.is_loopback else None


def _address(host: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    """The IP address `host` is written as, in any notation the OS's resolver accepts
    (`127.1`, `2130706433`, `0x7f.1`), else None (a host name)."""
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        if not _NUMERIC_V4.match(host):
            return None
        try:
            address = ipaddress.ip_address(socket.inet_aton(host))
        except OSError:
            return None
    return address


# The inet_aton notations: one to four parts, each decimal, octal (0...) or hex (0x...).
_NUMERIC_V4 = re.compile(r"^(0x[0-9a-f]+|[0-9]+)(\.(0x[0-9a-f]+|[0-9]+)){0,3}$")
