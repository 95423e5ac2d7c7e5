"""The command line: a thin click layer over the library (parse flags, call, map errors
to exit codes). Human output goes to stderr; machine output (plans) to stdout."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from reconciler import __version__
from reconciler.errors import ReconcilerError


class ReconcilerGroup(click.Group):
    """Turns every `ReconcilerError` into a clean message and exit 1, never a traceback."""

    def invoke(self, ctx: click.Context) -> object:
        try:
            return super().invoke(ctx)
        except ReconcilerError as err:
            click.echo(f"Error: {err}", err=True)
            sys.exit(1)


@click.group(cls=ReconcilerGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="reconciler")
def main() -> None:
    """Configuration-as-code for a helpdesk service and a workspace service."""


@main.group(cls=ReconcilerGroup)
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
def sandbox_serve(
    host: str,
    port: int,
    db: Path,
    seed: Path | None,
    reset: bool,
    quirks: tuple[str, ...],
    faults: str,
    rate_limit: int,
    search_rate_limit: int,
) -> None:
    """Serve the helpdesk under /helpdesk and the workspace service under /workspace."""
    from reconciler.sandbox.serve import serve_forever

    serve_forever(
        host=host,
        port=port,
        db=db,
        seed=seed,
        reset=reset,
        quirks=quirks,
        faults=faults,
        rate_limit=rate_limit,
        search_rate_limit=search_rate_limit,
    )
