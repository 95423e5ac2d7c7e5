"""A pytest plugin that records which test runs which line of the package (coverage.py
dynamic contexts, one context per test: its node id), and how long each test takes.

    RECONCILER_CONTEXTS=DIR python -m pytest -p tests.mutation.contexts TESTS

writes DIR/coverage.sqlite, DIR/durations.json and DIR/failed.json (the tests that
failed, which no mutant is judged by). With RECONCILER_CONTEXTS_WORKERS=1 too, under
pytest-xdist, only the workers record, each into DIR/<worker id> (`gw0`, `gw1` ...),
and `tests/mutation/workers.py` combines their records into DIR. Coverage starts when pytest loads
the plugin, before any conftest imports the package: lines run at import are recorded
under the context "import" (a module's top level), every other line under the tests that
ran it, in their setup, call or teardown.

Child processes too: when pytest runs under the recording interpreter
(`tests/mutation/interpreter.py`), each process a test starts (the CLI, a sandbox server)
runs coverage from its start under that test's node id (`tests/mutation/child.py` reads
it from DIR/context, which this plugin writes as each test starts and empties after), and
their data files are combined into DIR/coverage.sqlite at the end.
"""

from __future__ import annotations

import json
import os
from collections.abc import Generator
from pathlib import Path

import coverage
import pytest

IMPORT = "import"
WORKERS = "RECONCILER_CONTEXTS_WORKERS"


def _out() -> Path | None:
    """Where this process records: nowhere, DIR, or, with the tests shared among
    pytest-xdist's workers, DIR/<worker id> (the controller records nothing)."""
    where = os.environ.get("RECONCILER_CONTEXTS")
    if where is None:
        return None
    if not os.environ.get(WORKERS):
        return Path(where)
    worker = os.environ.get("PYTEST_XDIST_WORKER")  # set before the plugins load
    return Path(where) / worker if worker else None


_OUT = _out()
_durations: dict[str, float] = {}
_failed: set[str] = set()
_cov: coverage.Coverage | None = None

if _OUT is not None:
    _OUT.mkdir(parents=True, exist_ok=True)
    _cov = coverage.Coverage(
        data_file=str(_OUT / "coverage.sqlite"),
        # The package of the tree pytest runs in (the checkout, or a test's little tree).
        source=[str(Path.cwd() / "reconciler")],
        omit=[str(Path.cwd() / "reconciler" / "sandbox" / "*")],
        config_file=False,
    )
    _cov.start()
    _cov.switch_context(IMPORT)


def _switch(context: str) -> None:
    if _cov is not None and _OUT is not None:
        _cov.switch_context(context)
        (_OUT / "context").write_text("" if context == IMPORT else context)


def _in_context(item: pytest.Item) -> Generator[None, None, None]:
    _switch(item.nodeid)
    yield
    _switch(IMPORT)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_setup(item: pytest.Item) -> Generator[None, None, None]:
    yield from _in_context(item)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Generator[None, None, None]:
    yield from _in_context(item)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_teardown(item: pytest.Item) -> Generator[None, None, None]:
    yield from _in_context(item)


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    _durations[report.nodeid] = _durations.get(report.nodeid, 0.0) + report.duration
    if report.failed:
        _failed.add(report.nodeid)


@pytest.hookimpl(trylast=True)  # after the session's fixtures are torn down
def pytest_sessionfinish(session: pytest.Session) -> None:
    """Saved here, not at unconfigure: a pytest-xdist worker tells the controller it has
    finished right after this hook, and the controller may end it from then on."""
    if _cov is not None and _OUT is not None:
        _switch(IMPORT)
        _cov.stop()
        _cov.save()
        _cov.combine([str(_OUT)])  # the children's data files, removed once read
        _cov.save()
        (_OUT / "durations.json").write_text(json.dumps(_durations, indent=0))
        (_OUT / "failed.json").write_text(json.dumps(sorted(_failed)))
