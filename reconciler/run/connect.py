"""The connection a command runs with: the embedded sandbox (`--sandbox`), or the
services the flags, the variables and the `--env` environment name, with their
credentials checked up front."""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import replace

import click

from reconciler.clients.connection import Connection, RateSettings, Timeouts, connection_from
from reconciler.errors import AuthenticationError, UsageError
from reconciler.project import Target
from reconciler.project.model import Credential
from reconciler.run.flags import ConnectionFlags


@contextmanager
def open_connection(flags: ConnectionFlags, target: Target | None = None) -> Iterator[Connection]:
    """The connection to use while the block runs (the embedded sandbox stops after it)."""
    if flags.sandbox is not None:
        if flags.helpdesk_url or flags.workspace_url:
            raise UsageError("--sandbox cannot be combined with --helpdesk-url/--workspace-url")
        started = flags.sandbox()
        ignored = [name for name in ("HELPDESK_URL", "WORKSPACE_URL") if os.environ.get(name)]
        if ignored:
            click.echo(
                f"Warning: --sandbox is used: {' and '.join(ignored)} (exported) "
                f"{'is' if len(ignored) == 1 else 'are'} ignored, as are the credentials.",
                err=True,
            )
        with started as connection:
            yield replace(connection, timeouts=Timeouts(flags.timeout))
        return
    env = os.environ if target is None else target.variables(os.environ)
    check_credentials(env)
    connection = connection_from(
        env,
        helpdesk_url=flags.helpdesk_url,
        workspace_url=flags.workspace_url,
        rates=RateSettings(*flags.rates),
        timeouts=Timeouts(flags.timeout),
        allow_http=flags.allow_http,
        ca_file=flags.ca_file,
    )
    if target is not None:
        connection = replace(connection, environment=target.name)
    if not connection.configured:
        raise UsageError(
            "no service configured: set HELPDESK_URL (and credentials) and/or "
            "WORKSPACE_URL, or try --sandbox"
        )
    try:
        yield connection
    except AuthenticationError as exc:  # which credential was refused; never its value
        sent = _credentials_sent(connection, target, exc.path)
        raise AuthenticationError(
            exc.status, exc.method, exc.path, f"{exc.message} (the credential of {sent})"
        ) from None


def _credentials_sent(connection: Connection, target: Target | None, path: str) -> str:
    """The variables the refused credential was read from: the workspace's for its one
    resource (`/api/employees`), else the helpdesk's; through reconciler.yaml's
    `credentials:` where the environment names them."""
    if connection.workspace is not None and (
        connection.helpdesk is None or path.startswith("/api/employees")
    ):
        names = ["WORKSPACE_API_KEY"]
    elif connection.helpdesk is not None and connection.helpdesk.token is not None:
        names = ["HELPDESK_TOKEN"]
    else:
        names = ["HELPDESK_USERNAME", "HELPDESK_PASSWORD"]
    declared = target.declared.credentials if target is not None else {}
    shown = [
        f"{declared[Credential(n)]} (as {n})" if Credential(n) in declared else n for n in names
    ]
    where = f", environment {target.name}" if target is not None and declared else ""
    return " and ".join(shown) + where


def check_credentials(env: Mapping[str, str]) -> None:
    """A credential that cannot travel in an HTTP header is named (never shown) up front,
    rather than failing deep in the HTTP library with a message that would quote it."""
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
