"""Several independent tenants in one `sandbox serve` (`--tenant NAME[=SEED]`, repeated):
each has its own database (`DB-NAME.db` beside `--db`), its own credentials (generated
without a seed, the seed's with one), its own rate limiter and request log, and is served
under its own path prefix: `http://HOST:PORT/NAME/helpdesk` and `/NAME/workspace`. A
fleet of helpdesks for `reconciler plan --env '*'` on one port (docs/environments.md)."""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass
from pathlib import Path

from starlette.responses import PlainTextResponse
from starlette.types import ASGIApp, Receive, Scope, Send

from reconciler.errors import UsageError
from reconciler.sandbox.seed import Credentials

_NAME = re.compile(r"^[a-z0-9][a-z0-9-]*$")


@dataclass(frozen=True)
class TenantSpec:
    name: str
    seed: str | None  # a built-in seed's name or a seed file; None: generated credentials

    @classmethod
    def parse(cls, text: str) -> TenantSpec:
        name, sep, seed = text.partition("=")
        if not _NAME.match(name):
            raise UsageError(
                f"--tenant {text}: a tenant name is lower-case letters, digits and '-'"
            )
        return cls(name, seed if sep else None)

    def db(self, base: Path) -> Path:
        return base.with_name(f"{base.stem}-{self.name}{base.suffix or '.db'}")

    @property
    def prefix(self) -> str:
        """The variables' prefix: `ACME_` for `acme`, `NORTH_WIND_` for `north-wind`."""
        return self.name.upper().replace("-", "_") + "_"


def parse_tenants(texts: tuple[str, ...]) -> list[TenantSpec]:
    tenants = [TenantSpec.parse(text) for text in texts]
    names = [t.name for t in tenants]
    twice = sorted({n for n in names if names.count(n) > 1})
    if twice:
        raise UsageError(f"--tenant given twice for {', '.join(twice)}")
    return tenants


def tenant_export_lines(base_url: str, tenant: TenantSpec, creds: Credentials) -> list[str]:
    q, p = shlex.quote, tenant.prefix
    root = f"{base_url}/{tenant.name}"
    return [
        f"export {p}HELPDESK_URL={q(root + '/helpdesk')}",
        f"export {p}HELPDESK_USERNAME={q(creds.helpdesk_username)}",
        f"export {p}HELPDESK_PASSWORD={q(creds.helpdesk_password)}",
        f"export {p}HELPDESK_TOKEN={q(creds.helpdesk_token)}",
        f"export {p}WORKSPACE_URL={q(root + '/workspace')}",
        f"export {p}WORKSPACE_API_KEY={q(creds.workspace_api_key)}",
    ]


class TenantRouter:
    """Sends `/NAME/...` to tenant NAME's app with the prefix moved to `root_path`, so
    that each app sees the paths it would see alone; anything else is a 404."""

    def __init__(self, apps: dict[str, ASGIApp]) -> None:
        self.apps = apps

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            return  # lifespan is off
        head, sep, rest = scope["path"][1:].partition("/")
        app = self.apps.get(head)
        if app is None:
            known = ", ".join(f"/{name}/" for name in self.apps)
            response = PlainTextResponse(f"no tenant here; the tenants: {known}", 404)
            await response(scope, receive, send)
            return
        path = f"/{rest}" if sep else "/"
        inner = {
            **scope,
            "path": path,
            "raw_path": path.encode(),
            "root_path": scope.get("root_path", "") + f"/{head}",
        }
        await app(inner, receive, send)
