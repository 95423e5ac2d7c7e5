"""The command line: a thin click layer over the library (parse flags, call, map errors
to exit codes). Human output and progress go to stderr; the plan goes to stdout. One
module per command; `options.py` holds what they share.

Exit codes: 0 success (with --detailed-exitcode: no changes), 1 error, 2 changes present
(only with --detailed-exitcode)."""

from __future__ import annotations

import click

from reconciler import __version__
from reconciler.cli.apply import apply
from reconciler.cli.export import export
from reconciler.cli.group import ReconcilerGroup
from reconciler.cli.manifests import schema, validate
from reconciler.cli.plan import plan
from reconciler.cli.sandbox import sandbox


@click.group(cls=ReconcilerGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="reconciler")
def main() -> None:
    """Configuration-as-code for a helpdesk service and a workspace service."""


for command in (sandbox, validate, schema, plan, apply, export):
    main.add_command(command)

__all__ = ["main"]
