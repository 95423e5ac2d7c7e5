"""The command line: a thin click layer over the library (parse flags, call, map errors
to exit codes). Each command's module parses its options into the typed flags of
reconciler/run/flags.py and hands them to reconciler/fleet/dispatch.py, which runs the
command for no environment, one, or several; `options.py` holds the options commands
share. Human output and progress go to stderr; the plan goes to stdout. A command's module
is imported only when that command runs (group.py): `--help`, `--version` and `validate`
start quickly.

Exit codes (group.py): 0 success (with --detailed-exitcode: no changes), 1 any error,
usage errors included, 2 changes present (only with --detailed-exitcode), 130 interrupted."""

from __future__ import annotations

import click

from reconciler import __version__
from reconciler.cli.environment import document_environment
from reconciler.cli.group import LazyCommand, LazyGroup, document_exit_codes

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
    "environments": LazyCommand(
        "reconciler.cli.environments",
        "environments",
        "List the environments of the project file (reconciler.yaml).",
    ),
    "drift-issue": LazyCommand(
        "reconciler.cli.drift_issue",
        "drift_issue",
        "Open, update or close the drift issue from PLAN_FILE (`plan --out` or `plan --format "
        "json`): opened when the plan has changes, updated while they last, closed with a "
        "comment when the plan is clean. A plan with errors exits 1 and leaves the issue "
        "alone: that run is a failed job, not drift.",
    ),
}


def _prepare(name: str, command: click.Command) -> None:
    """What every command's --help ends with: its environment variables, the exit codes."""
    document_exit_codes(command, name)
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
