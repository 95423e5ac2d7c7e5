"""Coverage in a child process of a test, under the context of the test that started it.

Copied into the interpreter that records which test runs which line
(`tests/mutation/interpreter.py`) and started from its `.pth` file in every process of
that interpreter, before the process runs anything else. The recording pytest writes the
node id of the test that runs now into `context` in the record's folder (the tests run
one after another); a process started while no test runs (the recording pytest itself,
before its plugin starts) records nothing. Each child writes its own data file beside the
record's (`coverage.sqlite.<host>.<pid>.<random>`), which the plugin combines into it at
the end, and appends its context to `children` (which tests start children).

Standalone: it imports nothing of the package or the tests.
"""

from __future__ import annotations

import json
from pathlib import Path


def start() -> None:
    settings = json.loads(Path(__file__).with_suffix(".json").read_text())
    out = Path(settings["out"])
    try:
        context = (out / "context").read_text()
    except OSError:
        return
    if not context:
        return
    try:
        import coverage
    except ImportError:
        return
    cov = coverage.Coverage(
        data_file=str(out / "coverage.sqlite"),
        data_suffix=True,
        source=settings["source"],
        omit=settings["omit"],
        config_file=False,
        context=context,
        auto_data=True,  # saved at exit
    )
    # Nothing on the child's stderr, which tests read: no warning of no data (a child that
    # runs no line of the package) or of modules imported before (as coverage's own
    # process_startup does).
    cov._warn_no_data = cov._warn_unimported_source = cov._warn_preimported_source = False
    cov.set_option("run:disable_warnings", ["no-data-collected", "module-not-imported"])
    cov.start()
    with open(out / "children", "a", encoding="utf-8") as children:
        children.write(context + "\n")
