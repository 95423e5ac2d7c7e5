"""Run the command line in a fresh interpreter as the installed program does (`main()`
reading `sys.argv`), then report on that process: what it imported, what state a library
was left in. Used by the tests that check what a command does not load (issue 25)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

# `code` is the command's exit status; the report that follows sets `state`.
RUN_AS_PROGRAM = """
import json, sys
from reconciler.cli import main
sys.argv = ["reconciler", *sys.argv[1:]]
try:
    main()
except SystemExit as exit:
    code = exit.code
else:
    code = 0
"""


def run_as_program(
    *args: str, report: str, before: str = "", env: dict[str, str] | None = None
) -> object:
    """Run `reconciler ARGS` in a child (after the code `before`), then the code `report`,
    which sets `state` to something JSON can write; return that state."""
    program = (
        before
        + RUN_AS_PROGRAM
        + report
        + '\nsys.__stdout__.write("\\nSTATE " + json.dumps(state) + "\\n")\n'
    )
    result = subprocess.run(
        [sys.executable, "-c", program, *args],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=env,
        timeout=300,
        check=False,
    )
    marker = result.stdout.rpartition("\nSTATE ")[2]
    assert marker, result.stderr
    return json.loads(marker)
