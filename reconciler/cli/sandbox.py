"""`reconciler sandbox serve`: the local sandbox of both APIs."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from reconciler.cli.group import ReconcilerGroup


@click.group(cls=ReconcilerGroup)
def sandbox() -> None:
    """The local sandbox of both APIs."""


@sandbox.command("serve")
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to listen on.")
@click.option("--port", default=8765, show_default=True, type=int, help="Port; 0 picks a free one.")
@click.option(
    "--db",
    default=".reconciler/sandbox.db",
    show_default=True,
    type=click.Path(dir_okay=False, path_type=Path),
    help="SQLite file that keeps the state across restarts.",
)
@click.option(
    "--seed",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="YAML or JSON file loaded into an empty database (docs/sandbox-seed.md).",
)
@click.option("--reset", is_flag=True, help="Empty the database first.")
@click.option(
    "--quirk", "quirks", multiple=True, help="Switch on a real-world quirk (repeatable; 'all')."
)
@click.option("--faults", default="", help="Inject faults, e.g. 'error=0.05,drop=0.02,seed=1'.")
@click.option(
    "--rate-limit", default=90, show_default=True, type=int, help="Calls a minute; 0 = off."
)
@click.option(
    "--search-rate-limit", default=60, show_default=True, type=int, help="Search/UserByEmail."
)
def sandbox_serve(**options: Any) -> None:
    """Serve the helpdesk under /helpdesk and the workspace service under /workspace."""
    from reconciler.sandbox.serve import serve_forever

    serve_forever(**options)
