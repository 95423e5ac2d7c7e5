"""The exception tree of reconciler.

    ReconcilerError                 anything the CLI reports as an error, exit 1
    ├── UsageError                  a wrong flag, a missing connection setting
    ├── ProblemsError               many located problems, reported all at once
    │   ├── ManifestError           manifests that cannot be loaded or are invalid
    │   ├── SeedError               a sandbox seed file that cannot be loaded
    │   └── PlanFileError           a saved plan file that cannot be read back
    ├── ApiError                    the API answered an error (status, method, path)
    │   ├── AuthenticationError     401/403: never retried, ends the run at once
    │   └── OutcomeUnknown          a non-idempotent write whose outcome is unknown
    ├── TransportFailure            the API could not be reached after the retries
    ├── MalformedAnswer             an answer that is not what the spec describes
    ├── PlanHasErrors               the plan carries errors: nothing may be applied
    └── StalePlanError              a saved plan whose live state has changed

    ReadOnlyViolation (a bug, not a user mistake: a write attempted by `plan`)

Every message is meant for the person who ran the command and never holds a secret. A
message may quote what a server said, so every one is shown without C0 and C1 control
characters (`visible()`): an escape sequence in an error text would colour or move the
terminal, a carriage return overwrite the line.
"""

from __future__ import annotations

import re

# C0 controls but tab and line feed, DEL, and C1 controls.
_CONTROLS = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def visible(text: str) -> str:
    """`text` without its control characters (but line feeds and tabs)."""
    return _CONTROLS.sub("", text)


class ReconcilerError(Exception):
    """Base of every error the user can cause and fix."""

    def __str__(self) -> str:
        return visible(super().__str__())


class UsageError(ReconcilerError):
    pass


class ProblemsError(ReconcilerError):
    """`problems` holds every problem found, each prefixed with where it is:
    `file:line:column: message` (YAML), or `file: json.path: message` (a saved plan)."""

    def __init__(self, problems: list[str]) -> None:
        super().__init__("\n".join(problems))
        self.problems = problems


class ManifestError(ProblemsError):
    pass


class SeedError(ProblemsError):
    pass


class PlanFileError(ProblemsError):
    pass


class ApiError(ReconcilerError):
    def __init__(self, status: int | None, method: str, path: str, message: str) -> None:
        self.status = status
        self.method = method
        self.path = visible(path)
        self.message = visible(message).strip()
        shown = f"{status} " if status else ""
        super().__init__(f"{method} {self.path} failed: {shown}{self.message}".rstrip())


class AuthenticationError(ApiError):
    pass


class OutcomeUnknown(ApiError):
    """A create whose answer never arrived (timeout, dropped connection, 5xx): it may or
    may not have happened, so it must be re-read before it is tried again."""


class TransportFailure(ReconcilerError):
    pass


class MalformedAnswer(ReconcilerError):
    """An API answer that cannot be read as the spec describes it (an item without its id,
    an id that is no number): a wrong address, or a server this does not know."""


class PlanHasErrors(ReconcilerError):
    pass


class StalePlanError(ReconcilerError):
    pass


class ReadOnlyViolation(RuntimeError):
    """A write attempted through a read-only client: always a bug in reconciler."""
