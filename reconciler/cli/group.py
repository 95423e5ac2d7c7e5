"""The click group class every command group uses: what a run ends with.

Exit codes (DESIGN §3): 0 success; 1 any error, usage errors included (click's own is 2,
which a drift job would read as "changes present"); 2 only "changes present" with
`--detailed-exitcode`; 130 interrupted. A `ReconcilerError` is a clean message, never a
traceback; so is any other exception (a bug), unless RECONCILER_DEBUG is set. Everything
written to stdout and stderr passes through the credential masking (masking.py)."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
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
