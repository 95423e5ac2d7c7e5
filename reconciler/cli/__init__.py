"""The command line: a thin click layer over the library (parse flags, call, map errors
to exit codes). Human output and progress go to stderr; the plan goes to stdout. One
module per command; `options.py` holds what they share. A command's module is imported
only when that command runs (lazy.py): `--help`, `--version` and `validate` start quickly.

Exit codes (group.py): 0 success (with --detailed-exitcode: no changes), 1 any error,
usage errors included, 2 changes present (only with --detailed-exitcode), 130 interrupted."""

from __future__ import annotations

import click

from reconciler import __version__
from reconciler.cli.environment import document_environment
from reconciler.cli.group import document_exit_codes
from reconciler.cli.lazy import LazyCommand, LazyGroup

# name -> where the command is, and the first paragraph of its docstring (what --help
# lists; tests/cli/test_lazy_imports.py holds the two equal).
COMMANDS = {
    "sandbox": LazyCommand("reconciler.cli.sandbox", "sandbox", "The local sandbox of both APIs."),
    "validate": LazyCommand(
        "reconciler.cli.manifests",
        "validate",
        "Check manifests offline: syntax, schema, duplicates, references. No network.",
    ),
    "schema": LazyCommand(
        "reconciler.cli.manifests",
        "schema",
        "Print the JSON Schema of manifests (committed as schemas/manifest.schema.json).",
    ),
    "plan": LazyCommand(
        "reconciler.cli.plan",
        "plan",
        "Read the live state and print the plan; writes nothing to any API.",
    ),
    "apply": LazyCommand(
        "reconciler.cli.apply", "apply", "Plan, show, confirm, and execute, in dependency order."
    ),
    "export": LazyCommand(
        "reconciler.cli.export",
        "export",
        "Write manifests from the live state; `plan` on them then shows no change.",
    ),
}


def _prepare(name: str, command: click.Command) -> None:
    """What every command's --help ends with: its environment variables, the exit codes."""
    document_exit_codes(command)
    document_environment(command, name)


@click.group(
    cls=LazyGroup,
    context_settings={"help_option_names": ["-h", "--help"]},
    lazy=COMMANDS,
    prepare=_prepare,
)
@click.version_option(__version__, prog_name="reconciler")
def main() -> None:
    """Configuration-as-code for a helpdesk service and a workspace service."""


document_exit_codes(main)

__all__ = ["main"]
