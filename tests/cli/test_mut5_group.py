"""Ctrl-C while the shell completes a word (cli/group.py): outside the command's own run,
where click does not turn it into its Abort, it still ends as every other interrupt does."""

from __future__ import annotations

import click
from click.shell_completion import CompletionItem
from click.testing import CliRunner

from reconciler.cli.group import ReconcilerGroup


def slow_environments(
    ctx: click.Context, param: click.Parameter, incomplete: str
) -> list[CompletionItem]:
    raise KeyboardInterrupt  # Ctrl-C while the names are worked out


def offered(ctx: click.Context, param: click.Parameter, incomplete: str) -> list[CompletionItem]:
    return [CompletionItem("staging")]


@click.group(cls=ReconcilerGroup)
def cli() -> None:
    """A group of the CLI's class."""


@cli.command()
@click.option("--env", shell_complete=slow_environments)
@click.option("--target", shell_complete=offered)
def plan(env: str, target: str) -> None:
    click.echo("planned")


def complete(words: str) -> tuple[int, str, str]:
    env = {"_CLI_COMPLETE": "bash_complete", "COMP_WORDS": words, "COMP_CWORD": "3"}
    result = CliRunner().invoke(cli, [], env=env, prog_name="cli")
    if isinstance(result.exception, TypeError):
        raise result.exception
    return result.exit_code, result.stdout, result.stderr


def test_ctrl_c_during_shell_completion_says_interrupted_and_exits_130() -> None:
    assert complete("cli plan --env st") == (130, "", "\nInterrupted.\n")


def test_shell_completion_without_an_interrupt_offers_its_words() -> None:
    assert complete("cli plan --target st") == (0, "plain,staging\n", "")
