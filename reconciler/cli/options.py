"""Options and steps every command shares: manifest paths, --var-file, the connection
options (or --sandbox), and loading the manifests with their warnings printed."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import click

# Calls a minute (MAX_RATE): the helpdesk allows 90; a self-hosted install may allow more,
# not 10,000.
from reconciler.cli.extras import MAX_RATE
from reconciler.sandbox.config import builtin_seed_names

# Not required by click: `--env NAME` gives them instead (cli/environments.py checks).
manifest_paths = click.argument("paths", nargs=-1, type=click.Path(path_type=Path))
var_files = click.option(
    "--var-file",
    "var_files",
    multiple=True,
    type=click.Path(dir_okay=False, path_type=Path),
    help="YAML mapping of NAME: value filling ${NAME} before the environment; repeatable.",
)


def load_manifests(paths: tuple[Path, ...], var_file_paths: tuple[Path, ...]) -> Any:
    """Load and validate the manifests (with --var-file values), print the warnings."""
    from reconciler.manifest import validate_manifests
    from reconciler.manifest.varfiles import load_var_files

    variables = load_var_files(list(var_file_paths)) if var_file_paths else None
    result = validate_manifests(list(paths), os.environ, variables)
    target = _environment()
    if target is not None:  # the environment's own safety settings (reconciler.yaml)
        from dataclasses import replace

        from reconciler.project.fleet import with_safety

        result = replace(result, desired=with_safety(result.desired, target))
    for message in result.warnings:
        click.echo(f"Warning: {message}", err=True)
    return result


def connection_options(func: Callable[..., Any]) -> Callable[..., Any]:
    options = [
        click.option(
            "--helpdesk-url", help="Helpdesk base URL (or HELPDESK_URL); /api is appended."
        ),
        click.option("--workspace-url", help="Workspace base URL (or WORKSPACE_URL)."),
        click.option(
            "--rate-limit",
            type=click.IntRange(0, MAX_RATE),
            default=90,
            show_default=True,
            help="Helpdesk calls a minute; 0 for installs with DisableRateLimit.",
        ),
        click.option(
            "--search-rate-limit",
            type=click.IntRange(0, MAX_RATE),
            default=60,
            show_default=True,
            help="Search/UserByEmail calls a minute.",
        ),
        click.option(
            "--timeout",
            type=click.FloatRange(min=0.1, max=3600),
            default=60,
            show_default=True,
            envvar="RECONCILER_TIMEOUT",
            metavar="SECONDS",
            help="Longest wait for one answer (connecting: at most 10 s); a failing call "
            "is not retried after SECONDS more, so a silent server costs about 2 x SECONDS "
            "(or RECONCILER_TIMEOUT).",
        ),
        click.option(
            "--sandbox",
            is_flag=True,
            help="Start an embedded sandbox on loopback (state in .reconciler/sandbox.db).",
        ),
        click.option(
            "--sandbox-seed",
            default="acme",
            show_default=True,
            help="With --sandbox: seed used on first start (a built-in one: "
            f"{', '.join(builtin_seed_names())}; or a seed file).",
        ),
    ]
    for option in reversed(options):
        func = option(func)
    return func


@contextmanager
def open_connection(
    helpdesk_url: str | None,
    workspace_url: str | None,
    rate_limit: int,
    search_rate_limit: int,
    timeout: float,
    sandbox: bool,
    sandbox_seed: str,
) -> Iterator[Any]:
    from dataclasses import replace

    from reconciler.clients.connection import RateSettings, Timeouts, connection_from
    from reconciler.errors import UsageError

    if sandbox:
        if helpdesk_url or workspace_url:
            raise UsageError("--sandbox cannot be combined with --helpdesk-url/--workspace-url")
        from reconciler.cli.extras import require_sandbox_extra

        require_sandbox_extra()
        from reconciler.sandbox.embedded import embedded_sandbox

        ignored = [name for name in ("HELPDESK_URL", "WORKSPACE_URL") if os.environ.get(name)]
        if ignored:
            click.echo(
                f"Warning: --sandbox is used: {' and '.join(ignored)} (exported) "
                f"{'is' if len(ignored) == 1 else 'are'} ignored, as are the credentials.",
                err=True,
            )

        with embedded_sandbox(seed=sandbox_seed) as connection:
            yield replace(connection, timeouts=Timeouts(timeout))
        return
    target = _environment()
    env = os.environ if target is None else target.variables(os.environ)
    check_credentials(env)
    connection = connection_from(
        env,
        helpdesk_url=helpdesk_url,
        workspace_url=workspace_url,
        rates=RateSettings(rate_limit, search_rate_limit),
        timeouts=Timeouts(timeout),
    )
    if target is not None:
        from dataclasses import replace

        connection = replace(connection, environment=target.name)
    if not connection.configured:
        raise UsageError(
            "no service configured: set HELPDESK_URL (and credentials) and/or "
            "WORKSPACE_URL, or try --sandbox"
        )
    yield connection


def _environment() -> Any:
    """The `--env` environment this command runs for, or None (cli/environments.py)."""
    from reconciler.cli.environments import current_target

    return current_target()


def check_credentials(env: Mapping[str, str]) -> None:
    """A credential that cannot travel in an HTTP header is named (never shown) up front,
    rather than failing deep in the HTTP library with a message that would quote it."""
    from reconciler.errors import UsageError

    for name, header_text in _CREDENTIAL_RULES.items():
        value = env.get(name) or ""
        for position, char in enumerate(value, start=1):
            if header_text and not "\x21" <= char <= "\x7e":
                what = "a space" if char == " " else "a control or non-ASCII character"
            elif not char.isprintable():
                what = "a control character"
            elif name == "HELPDESK_USERNAME" and char == ":":
                what = "':', which Basic authentication cannot carry in a username"
            else:
                continue
            raise UsageError(
                f"{name} holds {what} (at position {position}); check how the variable "
                "is set (a trailing newline from a file?)"
            )


# Credential variables and whether they are sent as header text (visible ASCII only)
# rather than inside Basic authentication's base64 (any printable text).
_CREDENTIAL_RULES = {
    "HELPDESK_TOKEN": True,
    "WORKSPACE_API_KEY": True,
    "HELPDESK_USERNAME": False,
    "HELPDESK_PASSWORD": False,
}
