"""Whether a proxy named in the environment may apply to a service's URL: the clients
then leave their requests to httpx's own transport, which routes, proxies and bypasses
(NO_PROXY) as httpx does (transport.py, `new_transport`)."""

from __future__ import annotations

import os
import urllib.request

import httpx


def env_proxy_applies(url: httpx.URL) -> bool:
    """True when httpx (`trust_env`) may send requests for `url` through a proxy named in
    the environment: one is set for its scheme or for all, and NO_PROXY is not `*`. The
    other NO_PROXY entries are left to httpx's own transport."""
    if not _names_a_proxy():
        return False
    proxies = urllib.request.getproxies()
    if any(host.strip() == "*" for host in proxies.get("no", "").split(",")):
        return False
    return bool(proxies.get(url.scheme) or proxies.get("all"))


def _names_a_proxy() -> bool:
    """False when urllib takes proxies from the environment alone (Linux and the other
    POSIX systems but macOS) and no variable's name ends in `_proxy`, in any case: then it
    finds none. Told from the names' bytes, without urllib decoding every variable twice
    for every client (a fleet's environment holds several variables per tenant, and each
    tenant makes two clients: about 1 ms each with 100 tenants)."""
    if not os.supports_bytes_environ:
        return True
    if urllib.request.getproxies is not urllib.request.getproxies_environment:
        return True  # the system's own settings too (macOS, Windows)
    return any(name[-6:].lower() == b"_proxy" for name in os.environb)
