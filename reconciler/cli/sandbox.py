"""`reconciler sandbox serve`: the local sandbox of both APIs (reconciler/sandbox/start.py)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from reconciler.cli.group import ReconcilerGroup
from reconciler.cli.options import MAX_RATE
from reconciler.sandbox.config import FAULT_SETTINGS, QUIRKS, builtin_seed_names
from reconciler.sandbox.start import DEFAULT_SEED


@click.group(cls=ReconcilerGroup)
def sandbox() -> None:
    """The local sandbox of both APIs."""


@sandbox.command("serve")
@click.option(
    "--host",
    default="127.0.0.1",
    show_default=True,
    help="Address to listen on; off loopback only with --allow-remote.",
)
@click.option(
    "--allow-remote",
    is_flag=True,
    help="Listen on a --host other than loopback, although the /_sandbox/* routes (request "
    "log, faults, limits) need no credentials.",
)
@click.option(
    "--port",
    default=8765,
    show_default=True,
    type=click.IntRange(0, 65535),
    help="Port; 0 picks a free one.",
)
@click.option(
    "--db",
    default=".reconciler/sandbox.db",
    show_default=True,
    type=click.Path(dir_okay=False, path_type=Path),
    help="SQLite file that keeps the state across restarts.",
)
@click.option(
    "--seed",
    metavar="NAME|FILE",
    help="The tenant loaded into an empty database: a built-in one "
    f"({', '.join(builtin_seed_names())}) or a seed file (docs/sandbox.md). "
    f"Default: {DEFAULT_SEED}, as --sandbox.",
)
@click.option(
    "--empty",
    is_flag=True,
    help="Start an empty database with no tenant: one administrator and one workspace API "
    "key, with generated credentials.",
)
@click.option("--reset", is_flag=True, help="Empty the database first.")
@click.option(
    "--quirk",
    "quirks",
    multiple=True,
    metavar="NAME",
    help="Switch on a real-world quirk (repeatable), or 'all': " + ", ".join(QUIRKS) + ".",
)
@click.option(
    "--faults",
    default="",
    help="Inject faults, e.g. 'error=0.05,drop=0.02,seed=1'; settings: "
    + ", ".join(FAULT_SETTINGS)
    + ".",
)
@click.option(
    "--rate-limit",
    default=90,
    show_default=True,
    type=click.IntRange(0, MAX_RATE),
    help="Calls a minute; 0 = off.",
)
@click.option(
    "--search-rate-limit",
    default=60,
    show_default=True,
    type=click.IntRange(0, MAX_RATE),
    help="Search/UserByEmail.",
)
@click.option(
    "--tenant",
    "tenants",
    multiple=True,
    metavar="NAME[=SEED]",
    help="Serve several independent tenants (repeatable), each under /NAME/ with its own "
    "database, credentials and rate limits; without SEED, generated credentials and no data.",
)
def sandbox_serve(seed: str | None, empty: bool, allow_remote: bool, **options: Any) -> None:
    """Serve the helpdesk under /helpdesk and the workspace service under /workspace.

    A new database starts with the built-in acme tenant, as --sandbox does (--seed for
    another, --empty for none); a database that holds data keeps it."""
    from reconciler.sandbox.start import serve

    serve(seed, empty, allow_remote, **options)
