"""`reconciler apply`: the rules of apply are `ApplySession`'s (reconciler/applying/session.py);
one environment's run is reconciler/run/apply.py, several's reconciler/fleet/apply.py."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from reconciler.cli.options import (
    changed_since_option,
    connection_flags,
    connection_options,
    environments,
    flags,
    fleet_options,
    manifest_paths,
    var_files,
)


@click.command()
@fleet_options
@manifest_paths
@click.option(
    "--plan",
    "plan_file",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="Apply a plan saved by `plan --out`, only if planning again now gives exactly it; "
    "its --prune/--target/--exclude are used; --var-file must give the files it was made "
    "with (compared by content).",
)
@click.option("--yes", is_flag=True, help="Do not ask for confirmation.")
@click.option("--prune", is_flag=True, help="Remove live objects missing from the manifests.")
@click.option("--force", is_flag=True, help="Apply even when the safety brake holds.")
@click.option("--target", "targets", multiple=True, metavar="KIND[/KEY]", help="As for plan.")
@click.option("--exclude", "excludes", multiple=True, metavar="KIND[/KEY]", help="As for plan.")
@click.option(
    "--lock-timeout",
    type=click.FloatRange(min=0, max=86_400),
    default=0,
    show_default=True,
    metavar="SECONDS",
    help="Wait this long for another apply to the same services to end (0: refuse at once).",
)
@click.option(
    "--log",
    "log_file",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Where to write the JSON-lines record (default .reconciler/apply-TIME.jsonl).",
)
@click.option(
    "--parallelism",
    type=click.IntRange(min=1),
    default=10,
    show_default=True,
    help="Operations in flight at once (as Terraform's); 1 runs them one at a time.",
)
@changed_since_option
@var_files
@connection_options
def apply(**given: Any) -> None:
    """Plan, show, confirm, and execute, in dependency order."""
    from reconciler.fleet.dispatch import run_command
    from reconciler.run.flags import ApplyFlags

    chosen = flags(ApplyFlags, given, connection=connection_flags(given))
    run_command(chosen, environments(given))
