"""What embedders and users get from the top of the package: the version (the one the
CLI and the User-Agent show, the one installed), `python -m reconciler`, the planner's
public entry point `reconciler.plan`, and the messages of the errors everything raises."""

from __future__ import annotations

import importlib.metadata
import runpy
import sys

import pytest

import reconciler
import reconciler.planning.plan as planner
from reconciler.errors import (
    ApiError,
    AuthenticationError,
    ManifestError,
    PlanFileError,
    ProblemsError,
    ReconcilerError,
)
from reconciler.plans import Plan
from reconciler.plans.addresses import Selector

DISTRIBUTION = "helpdesk-reconciler"  # pyproject.toml's name: `reconciler` is another project


def test_the_version_is_the_one_installed() -> None:
    assert reconciler.__version__ == importlib.metadata.version(DISTRIBUTION)


def test_a_star_import_of_the_package_gives_its_version() -> None:
    namespace: dict[str, object] = {}
    exec("from reconciler import *", namespace)
    assert namespace["__version__"] == importlib.metadata.version(DISTRIBUTION)


def test_python_dash_m_reconciler_runs_the_cli(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(sys, "argv", ["reconciler", "--version"])
    with pytest.raises(SystemExit) as ended:
        runpy.run_module("reconciler", run_name="__main__")
    assert ended.value.code == 0
    assert capsys.readouterr().out == f"reconciler, version {reconciler.__version__}\n"


def test_the_public_planner_module_exports_the_planner() -> None:
    namespace: dict[str, object] = {}
    exec("from reconciler.plan import *", namespace)
    exported = {name: value for name, value in namespace.items() if name != "__builtins__"}
    assert exported == {
        "MANAGED_KINDS": planner.MANAGED_KINDS,
        "Plan": Plan,
        "Selector": Selector,
        "plan": planner.plan,
        "prune_kinds": planner.prune_kinds,
    }


# (status, method, path, message as the API gave it, the error's text)
API_ERRORS = [
    (404, "GET", "/api/Companies", "Not Found", "GET /api/Companies failed: 404 Not Found"),
    (500, "POST", "/api/X", "  boom \n", "POST /api/X failed: 500 boom"),
    (500, "POST", "/api/X", "", "POST /api/X failed: 500"),
    (
        None,
        "GET",
        "/v1/employees",
        "connection refused",
        "GET /v1/employees failed: connection refused",
    ),
    (None, "GET", "/v1/employees", " ", "GET /v1/employees failed:"),
    (0, "GET", "/x", "no status", "GET /x failed: no status"),
]


@pytest.mark.parametrize(("status", "method", "path", "message", "text"), API_ERRORS)
def test_an_api_error_says_what_failed(
    status: int | None, method: str, path: str, message: str, text: str
) -> None:
    for kind in (ApiError, AuthenticationError):
        error = kind(status, method, path, message)
        assert isinstance(error, ReconcilerError)
        assert str(error) == text
        # What callers decide on (a 404 while locating, the path in a report).
        assert (error.status, error.method, error.path) == (status, method, path)
        assert error.message == message.strip()


@pytest.mark.parametrize("kind", [ProblemsError, ManifestError, PlanFileError])
def test_problems_are_kept_one_by_one_and_shown_one_per_line(kind: type[ProblemsError]) -> None:
    problems = ["a.yaml:3:5: users[0].email: not an e-mail", "b.yaml:1:1: unknown kind"]
    error = kind(problems)
    assert isinstance(error, ReconcilerError)
    assert error.problems == problems
    assert str(error) == ("a.yaml:3:5: users[0].email: not an e-mail\nb.yaml:1:1: unknown kind")
