"""The lazy command group (cli/lazy.py) on a small table of its own, in-process: --help
lists the summaries in name order without importing a command, a command is loaded and
prepared once when run, an entry that is no command is refused, and each command's help
ends with the environment it reads (cli/environment.py)."""

from __future__ import annotations

import sys

import click
import pytest
from click.testing import CliRunner

from reconciler.cli.environment import document_environment
from reconciler.cli.lazy import LazyCommand, LazyGroup

TABLE = {
    "validate": LazyCommand("reconciler.cli.manifests", "validate", "Check manifests offline."),
    "schema": LazyCommand("reconciler.cli.manifests", "schema", "Print the JSON Schema."),
    "broken": LazyCommand("reconciler.cli.manifests", "Path", "Not a command."),
}


def lazy_group(prepared: list[str]) -> click.Group:
    def prepare(name: str, command: click.Command) -> None:
        prepared.append(name)

    @click.group(cls=LazyGroup, lazy=TABLE, prepare=prepare)
    def cli() -> None:
        """A lazy group."""

    @cli.command("aaa")
    def aaa() -> None:
        """An eager command."""

    return cli


def test_help_lists_the_summaries_in_order_without_loading(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delitem(sys.modules, "reconciler.cli.manifests", raising=False)
    prepared: list[str] = []
    result = CliRunner().invoke(lazy_group(prepared), ["--help"])
    assert result.exit_code == 0
    commands = result.output.split("Commands:\n", 1)[1].splitlines()
    assert [line.split()[0] for line in commands] == ["aaa", "broken", "schema", "validate"]
    assert commands[2].split(None, 1)[1] == "Print the JSON Schema."
    assert prepared == []
    assert "reconciler.cli.manifests" not in sys.modules


def test_a_command_is_loaded_and_prepared_once() -> None:
    prepared: list[str] = []
    cli = lazy_group(prepared)
    context = click.Context(cli)
    first = cli.get_command(context, "schema")
    assert cli.get_command(context, "schema") is first
    assert isinstance(first, click.Command) and prepared == ["schema"]
    assert cli.get_command(context, "nothing") is None


def test_an_entry_that_is_no_command_is_refused() -> None:
    cli = lazy_group([])
    with pytest.raises(TypeError) as refused:
        cli.get_command(click.Context(cli), "broken")
    assert str(refused.value) == "reconciler.cli.manifests.Path is not a click command"


def test_the_environment_each_command_reads_ends_its_help() -> None:
    @click.group()
    def cli() -> None:
        """Group."""

    @cli.command("validate")
    def validate() -> None:
        """Check.

        Indented later paragraph."""

    @cli.command("other")
    def other() -> None:
        """Other."""

    document_environment(cli)
    assert validate.help == (
        "Check.\n\nIndented later paragraph.\n\n\b\nEnvironment variables:\n"
        "  ${NAME}           any variable a manifest value names (after --var-file values)\n"
        "  NO_COLOR          set: no colour even on a terminal\n"
        "  RECONCILER_DEBUG  set: show the traceback of an internal error"
    )
    assert other.help == (
        "Other.\n\n\b\nEnvironment variables:\n"
        "  NO_COLOR          set: no colour even on a terminal\n"
        "  RECONCILER_DEBUG  set: show the traceback of an internal error"
    )
