"""`reconciler sandbox serve`: open (and first time seed) the database, print where the
services are and how to authenticate, then serve in the foreground.

Several independent tenants can share one `sandbox serve` (`--tenant NAME[=SEED]`,
repeated): each has its own database (`DB-NAME.db` beside `--db`), its own credentials
(generated without a seed, the seed's with one), its own rate limiter and request log, and
is served under its own path prefix: `http://HOST:PORT/NAME/helpdesk` and
`/NAME/workspace`. A fleet of helpdesks for `reconciler plan --env '*'` on one port
(docs/environments.md).

`--sandbox`: a sandbox started inside the command (`embedded_sandbox`), on a free loopback
port, persisted in `.reconciler/sandbox.db` and seeded on first use (from the built-in
`acme` tenant unless told otherwise), so the quick start needs no server and no
credentials. The seed is recorded in the database: a later `--sandbox-seed` naming
another is refused.
"""

from __future__ import annotations

import copy
import ipaddress
import json
import re
import shlex
import socket
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import click
from starlette.responses import PlainTextResponse
from starlette.types import ASGIApp, Receive, Scope, Send

from reconciler.clients.auth import Secret
from reconciler.clients.connection import (
    Connection,
    HelpdeskConnection,
    RateSettings,
    WorkspaceConnection,
)
from reconciler.errors import UsageError
from reconciler.sandbox.app import create_app
from reconciler.sandbox.config import BUILTIN_SEEDS, QUIRKS, FaultConfig, SandboxConfig, seed_path
from reconciler.sandbox.seed import Credentials, initialise
from reconciler.sandbox.server import SandboxServer, exclusive_db, listen, uvicorn_server
from reconciler.sandbox.state import SandboxState
from reconciler.sandbox.store import Store

CREDENTIALS_KEY = "credentials"
SEED_KEY = "seed"  # the seed the database was made from (`seed_name`)


class OtherSeed(UsageError):
    """The database holds a state made from another seed than the one insisted on."""

    def __init__(self, db: Path | None, recorded: str | None, wanted: str) -> None:
        self.recorded = recorded
        made = f"from the seed {recorded}" if recorded else "from a seed it does not record"
        super().__init__(
            f"{db} holds a sandbox made {made} (and what was applied to it since), not from "
            f"{wanted}: delete {db} to start over from {wanted}, or leave the seed out to "
            "use the sandbox as it is"
        )


def seed_name(seed: Path | None) -> str:
    """How a seed is recorded and named: a built-in one by its name, a file by its path."""
    if seed is None:
        return "(none)"
    if seed.parent.resolve() == BUILTIN_SEEDS.resolve():
        return seed.stem
    return str(seed.resolve())


def open_state(
    db: Path | None,
    seed: Path | None,
    config: SandboxConfig,
    reset: bool = False,
    *,
    insist: bool = False,
) -> tuple[SandboxState, Credentials, bool]:
    """The state in `db`, seeded when empty. Returns (state, credentials, seeded_now).
    `insist`: a state made from another seed is refused (`OtherSeed`), not reused."""
    store = Store(db)
    if reset:
        store.clear()
    state = SandboxState(store, config)
    saved = store.get_meta(CREDENTIALS_KEY)
    if saved is not None and not store.is_empty:
        recorded = store.get_meta(SEED_KEY)
        if insist and recorded != seed_name(seed):
            store.close()
            raise OtherSeed(db, recorded, seed_name(seed))
        return state, Credentials(**json.loads(saved)), False
    store.clear()
    try:
        creds = initialise(state, seed)
    except BaseException:
        store.close()
        raise
    store.set_meta(CREDENTIALS_KEY, json.dumps(creds.__dict__))
    store.set_meta(SEED_KEY, seed_name(seed))
    return state, creds, True


def build_config(
    quirks: tuple[str, ...], faults: str, rate_limit: int, search_rate_limit: int
) -> SandboxConfig:
    names = set(QUIRKS) if "all" in quirks else set(quirks)
    unknown = sorted(names - set(QUIRKS))
    if unknown:
        raise UsageError(f"unknown quirk {', '.join(unknown)}; known: {', '.join(sorted(QUIRKS))}")
    try:
        fault_config = FaultConfig.parse(faults)
    except ValueError as exc:
        raise UsageError(f"--faults: {exc}") from None
    return SandboxConfig(
        rate_limit=rate_limit,
        search_rate_limit=search_rate_limit,
        quirks=names,
        faults=fault_config,
    )


def export_lines(root: str, creds: Credentials, prefix: str = "") -> list[str]:
    """The variables to paste; a tenant's (`prefix`) give the token a line of its own."""
    q, p = shlex.quote, prefix
    token = f"export {p}HELPDESK_TOKEN={q(creds.helpdesk_token)}"
    return [
        f"export {p}HELPDESK_URL={q(root + '/helpdesk')}",
        f"export {p}HELPDESK_USERNAME={q(creds.helpdesk_username)}",
        f"export {p}HELPDESK_PASSWORD={q(creds.helpdesk_password)}",
        token if p else f"# or, instead of username and password: {token}",
        f"export {p}WORKSPACE_URL={q(root + '/workspace')}",
        f"export {p}WORKSPACE_API_KEY={q(creds.workspace_api_key)}",
    ]


def is_loopback(host: str) -> bool:
    """`localhost`, 127.0.0.0/8 and ::1: addresses other machines cannot reach."""
    name = host.strip().strip("[]").rstrip(".").lower()
    if name == "localhost":
        return True
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False


def serve_forever(
    *,
    host: str,
    port: int,
    db: Path,
    seed: Path | None,
    explicit: bool = True,
    reset: bool,
    quirks: tuple[str, ...],
    faults: str,
    rate_limit: int,
    search_rate_limit: int,
    tenants: tuple[str, ...] = (),
) -> None:
    config = build_config(quirks, faults, rate_limit, search_rate_limit)
    if tenants:
        if explicit:
            raise UsageError("--tenant NAME=SEED gives each tenant its seed: drop --seed/--empty")
        _serve_tenants(host, port, db, reset, tenants, config)
        return
    state, creds, seeded = open_state(db, seed, config, reset)
    if explicit and not seeded:
        chosen = "--seed" if seed is not None else "--empty"
        click.echo(
            f"{db} already holds data: {chosen} ignored (add --reset to start over).", err=True
        )
    sock, base = listen(host, port)
    # The sandbox's own credentials are printed on purpose: it is a local test server and
    # the user needs them to talk to it.
    click.echo(
        f"Sandbox serving the helpdesk at {base}/helpdesk and the workspace at {base}/workspace"
    )
    tenant = "with no tenant" if seed is None else f"from {seed.name}"
    click.echo(f"State: {db}" + (f" (seeded now {tenant})" if seeded else ""))
    if config.quirks:
        click.echo(f"Quirks: {', '.join(sorted(config.quirks))}")
    click.echo("Paste these to use it:")
    for line in export_lines(base, creds):
        click.echo(line)
    _run(create_app(state), sock, [state])


def _serve_tenants(
    host: str, port: int, db: Path, reset: bool, texts: tuple[str, ...], config: SandboxConfig
) -> None:
    """`--tenant NAME[=SEED]`: each tenant its own state, config and limiter."""
    specs = parse_tenants(texts)
    states: list[SandboxState] = []
    apps: dict[str, Any] = {}
    lines: list[str] = []
    try:
        sock, base = listen(host, port)
        for spec in specs:
            seed = seed_path(spec.seed) if spec.seed is not None else None
            # A copy each: `PUT /_sandbox/faults` changes one tenant's configuration.
            state, creds, _ = open_state(spec.db(db), seed, copy.deepcopy(config), reset)
            states.append(state)
            apps[spec.name] = create_app(state)
            lines.append(f"# tenant {spec.name}: {base}/{spec.name}/ (state: {spec.db(db)})")
            lines += export_lines(f"{base}/{spec.name}", creds, spec.prefix)
    except BaseException:
        for state in states:
            state.store.close()
        raise
    click.echo(
        f"Sandbox serving {len(specs)} tenant(s) at {base}/NAME/helpdesk and /NAME/workspace"
    )
    click.echo("Paste these to use it (the variables reconciler.yaml's credentials name):")
    for line in lines:
        click.echo(line)
    _run(TenantRouter(apps), sock, states)


def _run(app: Any, sock: socket.socket, states: list[SandboxState]) -> None:
    click.echo("Press Ctrl+C to stop.", err=True)
    sys.stdout.flush()  # the lines must reach a pipe (a test, `tee`) before serving starts
    try:
        uvicorn_server(app).run(sockets=[sock])
    finally:
        for state in states:
            state.store.close()


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


DEFAULT_DB = Path(".reconciler/sandbox.db")


@contextmanager
def embedded_sandbox(
    db: Path = DEFAULT_DB,
    seed: str = "acme",
    config: SandboxConfig | None = None,
    *,
    insist: bool = False,
) -> Iterator[Connection]:
    """The embedded sandbox runs without rate limits (and reconciler's limiter is off
    against it): it is there to try manifests quickly, not to measure throttling.
    `insist` (a seed given by the user): a database made from another seed is refused
    rather than silently used, and never silently replaced (it holds what was applied)."""
    config = config or SandboxConfig(rate_limit=0, search_rate_limit=0)
    with exclusive_db(db):  # not beside a running `sandbox serve` on the same file
        try:
            state, creds, _ = open_state(db, seed_path(seed), config, insist=insist)
        except OtherSeed as exc:
            raise UsageError(f"--sandbox-seed {seed}: {exc}") from None
        server = SandboxServer(state)
        server.start()
        try:
            yield Connection(
                HelpdeskConnection(server.helpdesk_url, token=Secret(creds.helpdesk_token)),
                WorkspaceConnection(server.workspace_url, Secret(creds.workspace_api_key)),
                RateSettings(general=0, search=0),
            )
        finally:
            server.stop()
