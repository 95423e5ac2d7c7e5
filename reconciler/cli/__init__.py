"""The command line: a thin click layer over the library (parse flags, call, map errors
to exit codes). Human output and progress go to stderr; the plan goes to stdout. One
module per command; `options.py` holds the options they share, `extras.py` what the
option modules share without importing each other.

Exit codes (group.py): 0 success (with --detailed-exitcode: no changes), 1 any error,
usage errors included, 2 changes present (only with --detailed-exitcode), 130 interrupted."""

from __future__ import annotations

import click

from reconciler import __version__
from reconciler.cli.apply import apply
from reconciler.cli.drift_issue import drift_issue
from reconciler.cli.environment import document_environment
from reconciler.cli.environments import environments
from reconciler.cli.export import export
from reconciler.cli.group import ReconcilerGroup, document_exit_codes
from reconciler.cli.manifests import schema, validate
from reconciler.cli.plan import plan
from reconciler.cli.sandbox import sandbox


@click.group(cls=ReconcilerGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="reconciler")
def main() -> None:
    """Configuration-as-code for a helpdesk service and a workspace service."""


for command in (sandbox, validate, schema, plan, apply, export, environments, drift_issue):
    main.add_command(command)
document_exit_codes(main)
document_environment(main)

__all__ = ["main"]
