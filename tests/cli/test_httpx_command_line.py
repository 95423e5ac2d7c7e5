"""httpx's own command-line client (`httpx._main`, with rich's progress bars and tables
and pygments) is not imported by reconciler's own process (cli/group.py, issue 25); httpx
itself is, and works. Checked on the modules of a child process, not on a timing."""

from __future__ import annotations

from tests.cli.program_runs import run_as_program

# What the child reports once the command line is done.
REPORT = """
import httpx
request = httpx.Request("GET", "http://h.example/api/x", params={"a": "b c"})
state = [
    "httpx" in sys.modules,
    sys.modules.get("httpx._main", "absent") is None,
    sorted({m.split(".")[0] for m in sys.modules} & {"pygments"}),
    str(request.url),
]
"""


def state(*args: str, before: str = "") -> list[object]:
    loaded = run_as_program(*args, report=REPORT, before=before)
    assert isinstance(loaded, list)
    return loaded


def test_the_command_line_imports_httpx_without_its_command_line_client() -> None:
    # `plan --help` imports the plan command's module, and with it httpx.
    assert state("plan", "--help") == [True, True, [], "http://h.example/api/x?a=b+c"]


def test_httpx_imported_before_is_left_as_it_is() -> None:
    """The check above can fail: a process that imported httpx first keeps its client."""
    loaded = state("plan", "--help", before="import httpx\n")
    assert loaded[:2] == [True, False]
