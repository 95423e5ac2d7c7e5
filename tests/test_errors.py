"""The messages of reconciler's errors (errors.py) as the CLI prints them after `Error: `:
an API error names the method, the path, the status when there is one and the answer's
message; many problems are one per line."""

from __future__ import annotations

import pytest

from reconciler.errors import (
    ApiError,
    AuthenticationError,
    ManifestError,
    OutcomeUnknown,
    ProblemsError,
    ReconcilerError,
)


@pytest.mark.parametrize(
    ("status", "message", "said"),
    [
        (404, " Not Found\n", "GET /api/Companies failed: 404 Not Found"),
        (500, "", "GET /api/Companies failed: 500"),
        (None, "connection reset", "GET /api/Companies failed: connection reset"),
        (0, "  ", "GET /api/Companies failed:"),
    ],
)
def test_an_api_error_names_method_path_status_and_message(
    status: int | None, message: str, said: str
) -> None:
    error = ApiError(status, "GET", "/api/Companies", message)
    assert str(error) == said
    assert (error.status, error.method, error.path) == (status, "GET", "/api/Companies")
    assert error.message == message.strip()


def test_the_kinds_of_api_error_are_reconciler_errors() -> None:
    for kind in (AuthenticationError, OutcomeUnknown):
        error = kind(401, "POST", "/Authorization", "Unauthorized")
        assert isinstance(error, ApiError) and isinstance(error, ReconcilerError)
        assert str(error) == "POST /Authorization failed: 401 Unauthorized"


def test_problems_are_one_a_line() -> None:
    problems = ["m.yaml:1:1: a", "m.yaml:2:3: b"]
    error = ManifestError(problems)
    assert isinstance(error, ProblemsError)
    assert str(error) == "m.yaml:1:1: a\nm.yaml:2:3: b"
    assert error.problems == problems
