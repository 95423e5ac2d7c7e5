"""Where the two services are and how to authenticate (DESIGN §3 "Connection"), from
flags and environment variables. Secrets are held in `Secret` (clients/auth.py), whose
repr, str and format never show the value."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import httpx

from reconciler.clients.auth import Secret
from reconciler.clients.base import tls_context
from reconciler.clients.retry import RetryPolicy
from reconciler.clients.urls import has_userinfo, refuse_cleartext
from reconciler.errors import UsageError


@dataclass(frozen=True)
class HelpdeskConnection:
    url: str
    token: Secret | None = None
    username: str | None = None
    password: Secret | None = None


@dataclass(frozen=True)
class WorkspaceConnection:
    url: str
    api_key: Secret


@dataclass(frozen=True)
class RateSettings:
    general: int = 90
    search: int = 60


DEFAULT_TIMEOUT = 60.0  # seconds: `--timeout`, RECONCILER_TIMEOUT
MAX_CONNECT = 10.0


@dataclass(frozen=True)
class Timeouts:
    """How long a call may take (`--timeout SECONDS`, default 60): opening the connection
    at most min(SECONDS, 10) s, each attempt's answer at most SECONDS, and a failing call
    is not tried again once SECONDS have passed since its first failure; so a server
    that accepts the connection and never answers costs a call about 2 x SECONDS. The
    waits a `429` asks for are not timeouts (RetryPolicy.max_throttle_wait)."""

    seconds: float = DEFAULT_TIMEOUT

    def http(self) -> httpx.Timeout:
        return httpx.Timeout(self.seconds, connect=min(self.seconds, MAX_CONNECT))

    def retry(self) -> RetryPolicy:
        return RetryPolicy(retry_for=self.seconds)


@dataclass(frozen=True)
class Connection:
    helpdesk: HelpdeskConnection | None
    workspace: WorkspaceConnection | None
    rates: RateSettings = RateSettings()
    # The project environment (`--env`, reconciler.yaml) this connection is for, if any.
    environment: str | None = None
    timeouts: Timeouts = Timeouts()
    # The certificates a server's is checked against (--ca-file, REQUESTS_CA_BUNDLE);
    # None: httpx's default (certifi's roots, or SSL_CERT_FILE/SSL_CERT_DIR).
    ca_file: str | None = None

    @property
    def configured(self) -> bool:
        return self.helpdesk is not None or self.workspace is not None


def connection_from(
    env: Mapping[str, str],
    *,
    helpdesk_url: str | None = None,
    workspace_url: str | None = None,
    rates: RateSettings = RateSettings(),
    timeouts: Timeouts = Timeouts(),
    allow_http: bool = False,
    ca_file: str | None = None,
) -> Connection:
    """Flags win over the environment. A URL without credentials is a usage error; no
    URL means the service is not configured (its kinds are skipped with a warning). A URL
    carrying a user name or password, or one that would send the credentials over
    `http://` beyond loopback (unless `allow_http`), is refused before any call. The
    certificates are `ca_file` (--ca-file), else REQUESTS_CA_BUNDLE's file, checked
    here: one that cannot be read is a usage error before any call."""
    hd_url = _checked_url("helpdesk", helpdesk_url, env, allow_http)
    helpdesk = None
    if hd_url:
        token = env.get("HELPDESK_TOKEN")
        username = env.get("HELPDESK_USERNAME")
        password = env.get("HELPDESK_PASSWORD") or None
        if token:
            helpdesk = HelpdeskConnection(hd_url, token=Secret(token))
        elif username and password is not None:
            helpdesk = HelpdeskConnection(hd_url, username=username, password=Secret(password))
        else:
            raise UsageError(
                "the helpdesk needs credentials: set HELPDESK_TOKEN, or "
                "HELPDESK_USERNAME and HELPDESK_PASSWORD"
            )
    ws_url = _checked_url("workspace", workspace_url, env, allow_http)
    workspace = None
    if ws_url:
        key = env.get("WORKSPACE_API_KEY")
        if not key:
            raise UsageError("the workspace service needs WORKSPACE_API_KEY")
        workspace = WorkspaceConnection(ws_url, Secret(key))
    ca_file = ca_file or env.get("REQUESTS_CA_BUNDLE") or None
    if ca_file is not None:
        tls_context(ca_file)
    return Connection(helpdesk, workspace, rates, timeouts=timeouts, ca_file=ca_file)


def _checked_url(
    service: str, flag: str | None, env: Mapping[str, str], allow_http: bool
) -> str | None:
    """The service's URL (the flag, else its variable), checked as `connection_from` says;
    the refusal names where the URL came from and never repeats it."""
    variable = f"{service.upper()}_URL"
    url, field = (flag, f"--{service}-url") if flag else (env.get(variable), variable)
    if not url:
        return None
    if has_userinfo(url):
        raise UsageError(
            f"{field} carries a user name or password (before '@'): remove it and give the "
            "credentials in their variables (HELPDESK_TOKEN, or HELPDESK_USERNAME and "
            "HELPDESK_PASSWORD; WORKSPACE_API_KEY)"
        )
    refuse_cleartext(url, service, allowed=allow_http)
    return url
