"""How every run ends (cli/group.py), on a small group of the same class and on the real
command line, in-process: the message and exit code of each kind of error, Ctrl-C (while
a command runs, and while the shell completes a word, where click does not turn it into
its Abort), a declined prompt, a usage error (1, never 2: 2 is "changes present"); a bug
in reconciler is one line saying so and how to see more, exit 1, no traceback, and with
RECONCILER_DEBUG set the exception itself comes through; a credential masked in
everything written; each command's help ends with the exit codes of that command."""

from __future__ import annotations

import re
import sys

import click
import pytest
from click.shell_completion import CompletionItem
from click.testing import CliRunner

from reconciler.cli import main
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
def test_each_way_a_run_ends_gives_its_message_and_exit_code(
    what: str, code: int, said: str
) -> None:
    env = {"HELPDESK_TOKEN": "s3cr3t-token", "RECONCILER_DEBUG": ""}
    result = CliRunner().invoke(group(), ["fail", what], env=env, input="n\n")
    assert (result.exit_code, result.output) == (code, said)


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


@pytest.fixture
def buggy(monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(*args: object, **kwargs: object) -> None:
        raise RuntimeError("boom")

    monkeypatch.setattr("reconciler.manifest.schema.schema_text", broken)


@pytest.mark.usefixtures("buggy")
def test_a_bug_is_one_line_and_exit_1() -> None:
    result = CliRunner().invoke(main, ["schema"], env={"RECONCILER_DEBUG": ""})
    assert result.exit_code == 1
    assert result.output == (
        "Error: internal error (RuntimeError: boom); this is a bug in reconciler: please "
        "report it (RECONCILER_DEBUG=1 shows the traceback)\n"
    )


@pytest.mark.usefixtures("buggy")
def test_reconciler_debug_lets_the_exception_through() -> None:
    result = CliRunner().invoke(main, ["schema"], env={"RECONCILER_DEBUG": "1"})
    assert isinstance(result.exception, RuntimeError)
    assert str(result.exception) == "boom"
    assert "internal error" not in result.output


def slow_environments(
    ctx: click.Context, param: click.Parameter, incomplete: str
) -> list[CompletionItem]:
    raise KeyboardInterrupt  # Ctrl-C while the names are worked out


def offered(ctx: click.Context, param: click.Parameter, incomplete: str) -> list[CompletionItem]:
    return [CompletionItem("staging")]


@click.group(cls=ReconcilerGroup)
def completing() -> None:
    """A group of the CLI's class, whose options complete words."""


@completing.command()
@click.option("--env", shell_complete=slow_environments)
@click.option("--target", shell_complete=offered)
def plan(env: str, target: str) -> None:
    click.echo("planned")


def complete(words: str) -> tuple[int, str, str]:
    env = {"_CLI_COMPLETE": "bash_complete", "COMP_WORDS": words, "COMP_CWORD": "3"}
    result = CliRunner().invoke(completing, [], env=env, prog_name="cli")
    if isinstance(result.exception, TypeError):
        raise result.exception
    return result.exit_code, result.stdout, result.stderr


def test_ctrl_c_during_shell_completion_says_interrupted_and_exits_130() -> None:
    assert complete("cli plan --env st") == (130, "", "\nInterrupted.\n")


def test_shell_completion_without_an_interrupt_offers_its_words() -> None:
    assert complete("cli plan --target st") == (0, "plain,staging\n", "")


# What each command's --help ends with (its own exit codes), as a user reads them.
EXIT_CODES = {
    "validate": "Exit codes: 0 valid (warnings allowed); 1 any problem in the manifests, "
    "usage errors included; 130 interrupted.",
    "schema": "Exit codes: 0 the schema was printed; 1 usage errors included; 130 interrupted.",
    "export": "Exit codes: 0 exported; 1 any error, usage errors included; 130 interrupted.",
    "environments": "Exit codes: 0 listed; 1 any error, usage errors included (no project "
    "file, a bad one, a pattern that matches no environment); 130 interrupted.",
    "apply": "Exit codes: 0 applied, or nothing to apply; 1 any error, usage errors included "
    '(a change that failed, the safety brake holding, the confirmation declined: "Apply '
    'cancelled."); 130 interrupted (the summary says what was done).',
    "plan": "Exit codes: 0 success (with --detailed-exitcode: no changes); 1 any error, "
    "usage errors included (and unmanaged objects with plan --fail-on-unmanaged); 2 changes "
    "present (only with --detailed-exitcode); 130 interrupted.",
    "drift-issue": "Exit codes: 0 the issue opened, updated, closed or left as it was; 1 any "
    "error, usage errors included (a plan with errors: a failed job, not drift); 130 "
    "interrupted.",
    "sandbox serve": "Exit codes: 0 the sandbox stopped (Ctrl-C or SIGTERM); 1 any error, "
    "usage errors included (a bad seed, the port or the database in use).",
}


@pytest.mark.parametrize("command", sorted(EXIT_CODES))
def test_each_help_ends_with_the_exit_codes_of_its_command(command: str) -> None:
    result = CliRunner().invoke(main, [*command.split(), "--help"], terminal_width=200)
    assert result.exit_code == 0, result.output
    # click wraps after a hyphen too: "--detailed-" at a line's end goes on with "exitcode".
    text = re.sub(r"-\n\s+", "-", result.output.strip())
    last = " ".join(text.split("\n\n")[-1].split())
    assert last == EXIT_CODES[command]
    # Only the codes of the exit-code table (docs/commands.md): 0, 1, 2, 130.
    assert set(re.findall(r"(?:^|; )(\d+) ", last.removeprefix("Exit codes: "))) <= {
        "0",
        "1",
        "2",
        "130",
    }
