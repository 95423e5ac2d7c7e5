"""httpx's own command-line client (`httpx._main`, with rich's progress bars and tables
and pygments) is not imported by reconciler's own process (cli/group.py, issue 25); httpx
itself is, and works. Checked on the modules of a child process, not on a timing."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

# Run the command line as the program does (`main()` reading sys.argv), then print what
# was imported.
PROGRAM = """
import json, sys
from reconciler.cli import main
sys.argv = ["reconciler", *sys.argv[1:]]
try:
    main()
except SystemExit:
    pass
import httpx
request = httpx.Request("GET", "http://h.example/api/x", params={"a": "b c"})
sys.__stdout__.write("\\nSTATE " + json.dumps([
    "httpx" in sys.modules,
    sys.modules.get("httpx._main", "absent") is None,
    sorted({m.split(".")[0] for m in sys.modules} & {"pygments"}),
    str(request.url),
]) + "\\n")
"""


def state(*args: str, before: str = "") -> list[object]:
    result = subprocess.run(
        [sys.executable, "-c", before + PROGRAM, *args],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=300,
        check=False,
    )
    loaded: list[object] = json.loads(result.stdout.rpartition("\nSTATE ")[2])
    return loaded


def test_the_command_line_imports_httpx_without_its_command_line_client() -> None:
    # `plan --help` imports the plan command's module, and with it httpx.
    assert state("plan", "--help") == [True, True, [], "http://h.example/api/x?a=b+c"]


def test_httpx_imported_before_is_left_as_it_is() -> None:
    """The check above can fail: a process that imported httpx first keeps its client."""
    loaded = state("plan", "--help", before="import httpx\n")
    assert loaded[:2] == [True, False]
