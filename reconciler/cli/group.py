"""The click group class every command group uses: a `ReconcilerError` becomes a clean
message and exit 1, never a traceback."""

from __future__ import annotations

import sys

import click

from reconciler.errors import ProblemsError, ReconcilerError


class ReconcilerGroup(click.Group):
    """Turns every `ReconcilerError` into a clean message and exit 1, never a traceback."""

    def invoke(self, ctx: click.Context) -> object:
        try:
            return super().invoke(ctx)
        except ProblemsError as err:
            for problem in err.problems:
                click.echo(problem, err=True)
            count = len(err.problems)
            click.echo(f"Error: {count} problem{'s' if count != 1 else ''} found.", err=True)
            sys.exit(1)
        except ReconcilerError as err:
            click.echo(f"Error: {err}", err=True)
            sys.exit(1)
