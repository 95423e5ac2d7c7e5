"""What every run ends with (cli/group.py), on a small group of the same class, in-process:
the message and exit code of each kind of error, Ctrl-C, a declined prompt, a usage
error; a credential masked in everything written; each command's exit codes in its help."""

from __future__ import annotations

import sys

import click
import pytest
from click.testing import CliRunner

from reconciler.cli.group import (
    COMMAND_EXIT_CODES,
    EXIT_CODES_HELP,
    ReconcilerGroup,
    document_exit_codes,
)
from reconciler.errors import ManifestError, UsageError


def group() -> click.Group:
    @click.group(cls=ReconcilerGroup)
    def cli() -> None:
        """A group."""

    @cli.command()
    @click.argument("what")
    def fail(what: str) -> None:
        if what == "problems":
            raise ManifestError(["a.yaml:1:1: first", "a.yaml:2:1: second"])
        if what == "problem":
            raise ManifestError(["a.yaml:1:1: only"])
        if what == "usage":
            raise UsageError("--out needs a directory")
        if what == "bug":
            raise ValueError("bad value")
        if what == "interrupt":
            raise KeyboardInterrupt
        if what == "declined":
            click.confirm("Go on?", abort=True)
        if what == "exit":
            sys.exit(2)
        click.echo("the token is s3cr3t-token")

    return cli


@pytest.mark.parametrize(
    ("what", "code", "said"),
    [
        ("problems", 1, "a.yaml:1:1: first\na.yaml:2:1: second\nError: 2 problems found.\n"),
        ("problem", 1, "a.yaml:1:1: only\nError: 1 problem found.\n"),
        ("usage", 1, "Error: --out needs a directory\n"),
        ("bug", 1, "Error: internal error (ValueError: bad value); this is a bug in "
                   "reconciler: please report it (RECONCILER_DEBUG=1 shows the traceback)\n"),
        ("interrupt", 130, "\nInterrupted.\n"),
        ("declined", 1, "Go on? [y/N]: n\nAborted!\n"),
        ("exit", 2, ""),
        ("fine", 0, "the token is ***\n"),
    ],
)  # fmt: skip
def test_each_end_of_a_run(what: str, code: int, said: str) -> None:
    env = {"HELPDESK_TOKEN": "s3cr3t-token", "RECONCILER_DEBUG": ""}
    result = CliRunner().invoke(group(), ["fail", what], env=env, input="n\n")
    assert (result.exit_code, result.output) == (code, said)


def test_with_reconciler_debug_a_bug_shows_its_traceback() -> None:
    result = CliRunner().invoke(group(), ["fail", "bug"], env={"RECONCILER_DEBUG": "1"})
    assert isinstance(result.exception, ValueError)
    assert "internal error" not in result.output


@pytest.mark.parametrize("args", [["fail"], ["fail", "x", "--nope"], ["nothing"]])
def test_a_usage_error_exits_1_not_2(args: list[str]) -> None:
    # 2 is "changes present" to a drift job.
    result = CliRunner().invoke(group(), args)
    assert result.exit_code == 1
    assert "Error:" in result.output


def test_each_command_ends_its_help_with_its_exit_codes() -> None:
    cli = group()

    @cli.group("plan")
    def sub() -> None:
        """A subgroup named as a command with codes of its own."""

    @sub.command("inner")
    def inner() -> None:
        """Its subcommand."""

    @cli.command("own", epilog="Exit codes: mine.")
    def own() -> None:
        """A command with its own epilog."""

    document_exit_codes(cli)
    assert cli.epilog == EXIT_CODES_HELP
    assert cli.commands["fail"].epilog == EXIT_CODES_HELP
    assert sub.epilog == COMMAND_EXIT_CODES["plan"]
    assert sub.commands["inner"].epilog == COMMAND_EXIT_CODES["plan"]
    assert cli.commands["own"].epilog == "Exit codes: mine."
    result = CliRunner().invoke(cli, ["plan", "inner", "--help"])
    assert result.output.rstrip().endswith("130 interrupted.")
