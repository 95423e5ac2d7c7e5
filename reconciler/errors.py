"""The exception tree of reconciler.

    ReconcilerError                 anything the CLI reports as a one-line error, exit 1
    ├── UsageError                  a wrong flag or combination of flags
    └── SeedError                   a sandbox seed file that cannot be loaded

Every error carries a message meant for the person who ran the command; the CLI prints
it without a traceback.
"""

from __future__ import annotations


class ReconcilerError(Exception):
    """Base of every error the user can cause and fix."""


class UsageError(ReconcilerError):
    pass


class SeedError(ReconcilerError):
    """`problems` holds every problem found, each as `file:line:column: message`."""

    def __init__(self, problems: list[str]) -> None:
        super().__init__("\n".join(problems))
        self.problems = problems
