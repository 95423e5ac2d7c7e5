"""`--sandbox`: a sandbox started inside the command, on a free loopback port, persisted
in `.reconciler/sandbox.db` and seeded on first use (from the built-in `acme` tenant
unless told otherwise), so the quick start needs no server and no credentials. The seed
is recorded in the database: a later `--sandbox-seed` naming another is refused."""

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
from reconciler.sandbox.config import SandboxConfig
from reconciler.sandbox.dblock import exclusive_db
from reconciler.sandbox.seeds_builtin import seed_path
from reconciler.sandbox.serve import OtherSeed, open_state
from reconciler.sandbox.server import SandboxServer

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
