"""`--sandbox`: a sandbox started inside the command, on a free loopback port, persisted
in `.reconciler/sandbox.db` and seeded on first use (from the built-in `acme` tenant
unless told otherwise), so the quick start needs no server and no credentials."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from reconciler.clients.auth import Secret
from reconciler.clients.connection import (
    Connection,
    HelpdeskConnection,
    RateSettings,
    WorkspaceConnection,
)
from reconciler.errors import UsageError
from reconciler.sandbox.config import BUILTIN_SEEDS, SandboxConfig, builtin_seed_names
from reconciler.sandbox.dblock import exclusive_db
from reconciler.sandbox.serve import open_state
from reconciler.sandbox.server import SandboxServer

DEFAULT_DB = Path(".reconciler/sandbox.db")


def seed_path(name_or_file: str) -> Path:
    """A built-in seed by name (`acme`, `empty`) or a seed file."""
    builtin = BUILTIN_SEEDS / f"{name_or_file}.yaml"
    if builtin.is_file():
        return builtin
    path = Path(name_or_file)
    if path.is_file():
        return path
    names = ", ".join(builtin_seed_names())
    raise UsageError(f"no seed {name_or_file!r}: give a file, or one of {names}")


@contextmanager
def embedded_sandbox(
    db: Path = DEFAULT_DB, seed: str = "acme", config: SandboxConfig | None = None
) -> Iterator[Connection]:
    """The embedded sandbox runs without rate limits (and reconciler's limiter is off
    against it): it is there to try manifests quickly, not to measure throttling."""
    config = config or SandboxConfig(rate_limit=0, search_rate_limit=0)
    with exclusive_db(db):  # not beside a running `sandbox serve` on the same file
        state, creds, _ = open_state(db, seed_path(seed), config)
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
