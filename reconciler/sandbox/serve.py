"""`reconciler sandbox serve`: open (and first time seed) the database, print where the
services are and how to authenticate, then serve in the foreground."""

from __future__ import annotations

import ipaddress
import json
import shlex
import socket
import sys
from pathlib import Path
from typing import Any

import click
import uvicorn

from reconciler.errors import UsageError
from reconciler.sandbox.app import create_app
from reconciler.sandbox.config import BUILTIN_SEEDS, QUIRKS, FaultConfig, SandboxConfig
from reconciler.sandbox.seed import Credentials, initialise
from reconciler.sandbox.server import quiet_dropped_connections
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


def export_lines(base_url: str, creds: Credentials) -> list[str]:
    q = shlex.quote
    return [
        f"export HELPDESK_URL={q(base_url + '/helpdesk')}",
        f"export HELPDESK_USERNAME={q(creds.helpdesk_username)}",
        f"export HELPDESK_PASSWORD={q(creds.helpdesk_password)}",
        f"# or, instead of username and password: export HELPDESK_TOKEN={q(creds.helpdesk_token)}",
        f"export WORKSPACE_URL={q(base_url + '/workspace')}",
        f"export WORKSPACE_API_KEY={q(creds.workspace_api_key)}",
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
        _serve_tenants(host, port, db, reset, tenants, (quirks, faults, rate_limit,
                                                         search_rate_limit))  # fmt: skip
        return
    state, creds, seeded = open_state(db, seed, config, reset)
    if explicit and not seeded:
        chosen = "--seed" if seed is not None else "--empty"
        click.echo(
            f"{db} already holds data: {chosen} ignored (add --reset to start over).", err=True
        )
    sock, base = _listen(host, port)
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
    host: str, port: int, db: Path, reset: bool, texts: tuple[str, ...], settings: Any
) -> None:
    """`--tenant NAME[=SEED]`: each tenant its own state, config and limiter (tenants.py)."""
    from reconciler.sandbox.seeds_builtin import seed_path
    from reconciler.sandbox.tenants import TenantRouter, parse_tenants, tenant_export_lines

    specs = parse_tenants(texts)
    states: list[SandboxState] = []
    apps: dict[str, Any] = {}
    lines: list[str] = []
    try:
        sock, base = _listen(host, port)
        for spec in specs:
            seed = seed_path(spec.seed) if spec.seed is not None else None
            state, creds, _ = open_state(spec.db(db), seed, build_config(*settings), reset)
            states.append(state)
            apps[spec.name] = create_app(state)
            lines.append(f"# tenant {spec.name}: {base}/{spec.name}/ (state: {spec.db(db)})")
            lines += tenant_export_lines(base, spec, creds)
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


def _listen(host: str, port: int) -> tuple[socket.socket, str]:
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    # IPPROTO_TCP explicitly: asyncio sets TCP_NODELAY only on sockets that say they are TCP,
    # and without it every keep-alive answer waits ~40 ms for a delayed ACK.
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError as exc:
        raise UsageError(f"cannot listen on {host}:{port}: {exc.strerror}") from None
    sock.listen(128)
    bound_port = sock.getsockname()[1]
    return sock, f"http://{host if ':' not in host else f'[{host}]'}:{bound_port}"


def _run(app: Any, sock: socket.socket, states: list[SandboxState]) -> None:
    click.echo("Press Ctrl+C to stop.", err=True)
    sys.stdout.flush()  # the lines must reach a pipe (a test, `tee`) before serving starts
    quiet_dropped_connections()
    server = uvicorn.Server(
        uvicorn.Config(
            app,
            log_level="warning",
            access_log=False,
            lifespan="off",
        )
    )
    try:
        server.run(sockets=[sock])
    finally:
        for state in states:
            state.store.close()
