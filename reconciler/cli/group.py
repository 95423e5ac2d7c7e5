"""The click group classes: what every run ends with (`ReconcilerGroup`), and the lazy
top-level group (`LazyGroup`).

Exit codes (DESIGN §3): 0 success; 1 any error, usage errors included (click's own is 2,
which a drift job would read as "changes present"); 2 only "changes present" with
`--detailed-exitcode`; 130 interrupted. A `ReconcilerError` is a clean message, never a
traceback; so is any other exception (a bug), unless RECONCILER_DEBUG is set. Everything
written to stdout and stderr passes through the credential masking (masking.py).

The top-level group imports a command's module only when that command runs:
`reconciler --help`, `--version` and `validate` need neither the HTTP stack (httpx), nor
the terminal's (rich), nor the planner: each command module imports what it needs, and
this group imports only the module of the command being run. `--help` lists the commands
from `COMMANDS` (their one-line summaries) without importing any of them;
tests/cli/test_lazy_imports.py checks each summary against its command's docstring and
that `--help`, `--version` and `validate` leave httpx and rich unimported.
"""

from __future__ import annotations

import importlib
import os
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import click

from reconciler.errors import ProblemsError, ReconcilerError
from reconciler.masking import MaskingStream, install

EXIT_ERROR = 1
EXIT_INTERRUPTED = 130

EXIT_CODES_HELP = (
    "Exit codes: 0 success (with --detailed-exitcode: no changes); 1 any error, "
    "usage errors included (and unmanaged objects with plan --fail-on-unmanaged); "
    "2 changes present (only with --detailed-exitcode); 130 interrupted."
)


class ReconcilerGroup(click.Group):
    """Turns every error into a clean message and the exit codes above."""

    def main(self, args: Sequence[str] | None = None, *rest: Any, **kwargs: Any) -> Any:
        if args is None:  # the command line is the process's own (not a test's or a caller's)
            _no_pydantic_plugins()
            _no_httpx_command_line()
        with _masked_output():
            try:
                return super().main(args, *rest, **kwargs)
            except KeyboardInterrupt:  # raised where click does not turn it into Abort
                click.echo("\nInterrupted.", err=True)
                sys.exit(EXIT_INTERRUPTED)

    def make_context(self, *args: Any, **kwargs: Any) -> click.Context:
        context: click.Context = _usage_exits_1(
            lambda: super(ReconcilerGroup, self).make_context(*args, **kwargs)
        )
        return context

    def invoke(self, ctx: click.Context) -> object:
        try:
            return _usage_exits_1(lambda: super(ReconcilerGroup, self).invoke(ctx))
        except (KeyboardInterrupt, click.Abort) as err:
            if isinstance(err, click.Abort) and not isinstance(err.__context__, KeyboardInterrupt):
                raise  # a refused prompt: click prints "Aborted!" and exits 1
            click.echo("\nInterrupted.", err=True)
            sys.exit(EXIT_INTERRUPTED)
        except ProblemsError as err:
            for problem in err.problems:
                click.echo(problem, err=True)
            count = len(err.problems)
            click.echo(f"Error: {count} problem{'s' if count != 1 else ''} found.", err=True)
            sys.exit(EXIT_ERROR)
        except ReconcilerError as err:
            click.echo(f"Error: {err}", err=True)
            sys.exit(EXIT_ERROR)
        except (click.ClickException, click.exceptions.Exit, SystemExit):
            raise
        except Exception as err:
            if os.environ.get("RECONCILER_DEBUG"):
                raise
            click.echo(
                f"Error: internal error ({type(err).__name__}: {err}); this is a bug in "
                "reconciler: please report it (RECONCILER_DEBUG=1 shows the traceback)",
                err=True,
            )
            sys.exit(EXIT_ERROR)


def _no_pydantic_plugins() -> None:
    """pydantic looks for plugins (the entry points of every installed distribution) when
    it builds the first model: about 5 % of `validate`'s CPU (issue 25). A plugin some
    other package installs has no part in checking reconciler's manifests, so the process
    running its command line loads none, the way pydantic documents
    (PYDANTIC_DISABLE_PLUGINS). Set by the user, even empty (load them all), it is kept."""
    os.environ.setdefault("PYDANTIC_DISABLE_PLUGINS", "__all__")


def _no_httpx_command_line() -> None:
    """`import httpx` imports httpx's own command-line client (`httpx._main`: rich's
    progress bars and tables, pygments, its click command), about a tenth of what `apply`
    imports (issue 25), for a program this process never runs. So the process running
    reconciler's command line marks that module as not installed before httpx is imported,
    and httpx defines its fallback `httpx.main` (which says the CLI's extra is missing);
    everything else of httpx is the same. Not done once httpx is imported."""
    if "httpx" not in sys.modules:
        sys.modules.setdefault("httpx._main", None)  # type: ignore[arg-type]


def _usage_exits_1(call: Any) -> Any:
    try:
        return call()
    except click.UsageError as err:
        err.exit_code = EXIT_ERROR  # type: ignore[misc]  # click's is a class default
        raise


# Each command's own exit codes, at the end of its --help (by the command's path).
COMMAND_EXIT_CODES = {
    "plan": EXIT_CODES_HELP,
    "environments": "Exit codes: 0 listed; 1 any error, usage errors included (no project file, "
    "a bad one, a pattern that matches no environment); 130 interrupted.",
    "drift-issue": "Exit codes: 0 the issue opened, updated, closed or left as it was; 1 any "
    "error, usage errors included (a plan with errors: a failed job, not drift); 130 "
    "interrupted.",
    "apply": "Exit codes: 0 applied, or nothing to apply; 1 any error, usage errors "
    "included (a change that failed, the safety brake holding, the confirmation declined: "
    '"Apply cancelled."); 130 interrupted (the summary says what was done).',
    "validate": "Exit codes: 0 valid (warnings allowed); 1 any problem in the manifests, "
    "usage errors included; 130 interrupted.",
    "schema": "Exit codes: 0 the schema was printed; 1 usage errors included; 130 interrupted.",
    "export": "Exit codes: 0 exported; 1 any error, usage errors included; 130 interrupted.",
    "sandbox": "Exit codes: 0 the sandbox stopped (Ctrl-C or SIGTERM); 1 any error, usage "
    "errors included (a bad seed, the port or the database in use).",
}


def document_exit_codes(command: click.Command, path: str = "") -> None:
    """Ends the --help of `command` (and of its subcommands) with its own exit codes: a
    subcommand without its own entry has its group's."""
    if not command.epilog:
        command.epilog = COMMAND_EXIT_CODES.get(path.split(" ")[0], EXIT_CODES_HELP)
    if isinstance(command, click.Group):
        for name, sub in command.commands.items():
            document_exit_codes(sub, f"{path} {name}".strip())


@contextmanager
def _masked_output() -> Iterator[None]:
    # Always wrapped: the clients register the secrets they send (clients/auth.py), which
    # may come from no variable at all (`--sandbox`, an environment's `credentials:`).
    masker = install(os.environ)
    saved = sys.stdout, sys.stderr
    sys.stdout = MaskingStream(sys.stdout, masker)
    sys.stderr = MaskingStream(sys.stderr, masker)
    try:
        yield
    finally:
        for stream in (sys.stdout, sys.stderr):
            stream.flush()
        sys.stdout, sys.stderr = saved


@dataclass(frozen=True)
class LazyCommand:
    module: str  # imported when the command runs, e.g. "reconciler.cli.plan"
    attribute: str  # the click command in it
    summary: str  # the first paragraph of its docstring: what --help lists


class LazyGroup(ReconcilerGroup):
    """A `ReconcilerGroup` whose commands live in `COMMANDS`-like tables: `prepare` is
    applied to each command once loaded (the exit codes and environment in its help)."""

    def __init__(
        self,
        *args: object,
        lazy: dict[str, LazyCommand],
        prepare: Callable[[str, click.Command], None],
        **kwargs: object,
    ) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        self.lazy = lazy
        self._prepare = prepare

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*self.commands, *self.lazy})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in self.commands and cmd_name in self.lazy:
            self.add_command(self.load(cmd_name), cmd_name)
        return self.commands.get(cmd_name)

    def load(self, name: str) -> click.Command:
        entry = self.lazy[name]
        command = getattr(importlib.import_module(entry.module), entry.attribute)
        if not isinstance(command, click.Command):
            raise TypeError(f"{entry.module}.{entry.attribute} is not a click command")
        self._prepare(name, command)
        return command

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """As click's, from the summaries: listing the commands imports none of them."""
        names = self.list_commands(ctx)
        if not names:
            return
        limit = formatter.width - 6 - max(map(len, names))
        rows = []
        for name in names:
            loaded = self.commands.get(name)
            shown = loaded or click.Command(name, help=self.lazy[name].summary)
            if not shown.hidden:
                rows.append((name, shown.get_short_help_str(limit)))
        if rows:
            with formatter.section("Commands"):
                formatter.write_dl(rows)
