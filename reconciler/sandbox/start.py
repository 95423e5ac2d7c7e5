"""Starting the sandbox from the command line, on a base install too: the check that the
`sandbox` extra (its web server) is installed, `sandbox serve`'s refusals and seed, and
the embedded sandbox `--sandbox` connects to. Imports none of the extra until it starts."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from contextlib import AbstractContextManager
from typing import TYPE_CHECKING, Any

import click

from reconciler.errors import UsageError

if TYPE_CHECKING:
    from reconciler.clients.connection import Connection

DISTRIBUTION = "helpdesk-reconciler"
# The import names of the `sandbox` extra's distributions (pyproject.toml):
# starlette, uvicorn, python-multipart (imported as python_multipart, formerly multipart).
SANDBOX_MODULES = (("starlette",), ("uvicorn",), ("python_multipart", "multipart"))
# The tenant `sandbox serve` starts with, the same as `--sandbox`'s (`--sandbox-seed`), so
# that the example plan means the same against either.
DEFAULT_SEED = "acme"


def require_sandbox_extra() -> None:
    """Refuse, in one line naming the extra, when the sandbox's web server is missing:
    the base install plans and applies against real services without it."""
    missing = [names[0] for names in SANDBOX_MODULES if not any(map(_importable, names))]
    if missing:
        raise UsageError(
            f"the sandbox needs the 'sandbox' extra ({', '.join(missing)} not installed): "
            f"pip install '{DISTRIBUTION}[sandbox]'"
        )


def _importable(module: str) -> bool:
    try:
        importlib.import_module(module)
    except ImportError:
        return False
    return True


def embedded(seed: str | None) -> Callable[[], AbstractContextManager[Connection]]:
    """`--sandbox --sandbox-seed SEED`: called when the command connects, it checks the
    extra and gives the embedded sandbox (started when entered, stopped after). A seed
    given (not None) must be the one the database was made from, when it exists."""

    def start() -> AbstractContextManager[Connection]:
        require_sandbox_extra()
        from reconciler.sandbox.serve import embedded_sandbox

        return embedded_sandbox(seed=seed or DEFAULT_SEED, insist=seed is not None)

    return start


def serve(seed: str | None, empty: bool, allow_remote: bool, **options: Any) -> None:
    """`sandbox serve`: off loopback only when allowed; a seed or none (--empty); one
    sandbox per database; until Ctrl-C or SIGTERM."""
    require_sandbox_extra()
    from reconciler.sandbox.config import seed_path
    from reconciler.sandbox.serve import is_loopback, serve_forever
    from reconciler.sandbox.server import exclusive_db

    host = options["host"]
    if not is_loopback(host):
        if not allow_remote:
            raise UsageError(
                f"--host {host} is not loopback: other machines could reach the sandbox, "
                "whose /_sandbox/* routes need no credentials; add --allow-remote if that "
                "is meant"
            )
        click.echo(f"Warning: listening on {host}: /_sandbox/* needs no credentials.", err=True)

    if empty and seed is not None:
        raise UsageError("--empty and --seed contradict each other: give one of them")
    chosen = None if empty else seed_path(seed or DEFAULT_SEED)
    with exclusive_db(options["db"]):  # one sandbox per database (server.py)
        serve_forever(seed=chosen, explicit=empty or seed is not None, **options)
