"""Every bad input of issue 10, run as a user runs it: `python -m reconciler` in a child
process, through `validate` and `plan`. Each must exit 1 with a one-line message holding
the expected fragment, print no traceback and never the credential, and end (the timeout
is the guard against a hang, not a measure of speed).

One row per case: `Row(id, manifest, exit code, message fragment, ...)`. The manifest is
written to `m.yaml`; `{fifo}`, `{dir}` and `{big}` in the arguments become a FIFO, an empty
directory and a sparse file over the size cap, made in the test's directory."""

# ruff: noqa: E501  (a row is one line, whatever its length: adding a case is adding a line)

from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

import pytest

SECRET = "s3cr3t-T0KEN-value"
OK = "companies: [{name: Acme}]\n"
BOTH = ("validate", "plan")
PLAN = ("plan",)


@dataclass(frozen=True)
class Row:
    id: str
    manifest: str
    exit_code: int
    fragment: str
    args: tuple[str, ...] = ()
    env: dict[str, str] = field(default_factory=dict)
    commands: tuple[str, ...] = BOTH
    paths: tuple[str, ...] = ("m.yaml",)


ROWS = [
    # files and options (issue 10 item 4)
    Row("manifest is a FIFO", OK, 1, "{fifo}:1:1: cannot read the file: it is a FIFO", paths=("{fifo}",)),
    Row("FIFO in the manifest directory", OK, 1, "cannot read the file: it is a FIFO", paths=(".",)),
    Row("var file is a FIFO", OK, 1, "cannot read the variables file: it is a FIFO", ("--var-file", "{fifo}")),
    Row("var file is /dev/zero", OK, 1, "/dev/zero:1:1: cannot read the variables file: it is a device", ("--var-file", "/dev/zero")),
    Row("var file is a directory", OK, 1, "'--var-file': File '{dir}' is a directory", ("--var-file", "{dir}")),
    Row("manifest over the size cap", OK, 1, "{big}:1:1: cannot read the file: it is larger than 32 MiB", paths=("{big}",)),
    Row("manifest path missing", OK, 1, "nowhere.yaml:1:1: no such file or directory", paths=("nowhere.yaml",)),
    Row("directory without manifests", OK, 1, "{dir}:1:1: no manifest files", paths=("{dir}",)),
    Row("control character in HELPDESK_TOKEN", OK, 1, "HELPDESK_TOKEN holds a control or non-ASCII character (at position 5)", env={"HELPDESK_TOKEN": "abcd\n" + SECRET}, commands=PLAN),
    Row("space in WORKSPACE_API_KEY", OK, 1, "WORKSPACE_API_KEY holds a space", env={"WORKSPACE_URL": "http://127.0.0.1:9/ws", "WORKSPACE_API_KEY": "a b"}, commands=PLAN),
    Row("':' in HELPDESK_USERNAME", OK, 1, "HELPDESK_USERNAME holds ':'", env={"HELPDESK_TOKEN": "", "HELPDESK_USERNAME": "a:b", "HELPDESK_PASSWORD": SECRET}, commands=PLAN),
    Row("negative --rate-limit", OK, 1, "'--rate-limit': -1 is not in the range 0<=x<=10000", ("--rate-limit", "-1"), commands=PLAN),
    Row("huge --search-rate-limit", OK, 1, "'--search-rate-limit': 99999 is not in the range", ("--search-rate-limit", "99999"), commands=PLAN),
    Row("rate limit not a number", OK, 1, "'--rate-limit': 'fast' is not a valid integer", ("--rate-limit", "fast"), commands=PLAN),
    # usage errors exit 1 (item 5)
    Row("unknown option", OK, 1, "No such option '--bogus'", ("--bogus",)),
    Row("unknown format", OK, 1, "'--format': 'yaml' is not one of", ("--format", "yaml"), commands=PLAN),
    Row("no path", OK, 1, "Missing argument 'PATHS...'", paths=()),
    # secrets (item 6)
    Row("${HELPDESK_PASSWORD} in a value", "companies: [{name: Acme, notes: '${HELPDESK_PASSWORD}'}]", 1, "m.yaml:1:33: '${HELPDESK_PASSWORD}' refers to a credential"),
    Row("${HELPDESK_TOKEN} in a key field", "companies: [{name: '${HELPDESK_TOKEN}'}]", 1, "m.yaml:1:20: '${HELPDESK_TOKEN}' refers to a credential"),
    Row("${WORKSPACE_API_KEY} in an employee", "workspace: {employees: [{email: a@acme.com, note: '${WORKSPACE_API_KEY}'}]}", 1, "'${WORKSPACE_API_KEY}' refers to a credential"),
    Row("a name in RECONCILER_SECRET_VARIABLES", "companies: [{name: '${SMTP_PASS}'}]", 1, "'${SMTP_PASS}' refers to a credential", env={"RECONCILER_SECRET_VARIABLES": "SMTP_PASS, OTHER", "SMTP_PASS": SECRET}),
]  # fmt: skip


def _materialise(text: str, tmp_path: Path) -> str:
    return (
        text.replace("{fifo}", str(tmp_path / "fifo.yaml"))
        .replace("{dir}", str(tmp_path / "empty"))
        .replace("{big}", str(tmp_path / "big.yaml"))
    )


def _run(row: Row, command: str, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    env = {key: os.environ[key] for key in ("PATH", "HOME", "SYSTEMROOT") if key in os.environ}
    env.update(HELPDESK_URL="http://127.0.0.1:9/helpdesk", HELPDESK_TOKEN=SECRET, NO_COLOR="1")
    env.update(row.env)
    paths = [_materialise(path, tmp_path) for path in row.paths]
    args = [_materialise(arg, tmp_path) for arg in row.args]
    return subprocess.run(
        [sys.executable, "-m", "reconciler", command, *paths, *args],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,  # a hang guard: every case ends in about a second
    )


@pytest.fixture
def case_dir(tmp_path: Path) -> Path:
    os.mkfifo(tmp_path / "fifo.yaml")
    (tmp_path / "empty").mkdir()
    with open(tmp_path / "big.yaml", "wb") as big:  # sparse: no disk is used
        big.truncate(40 * 1024 * 1024)
    return tmp_path


@pytest.mark.parametrize("row", ROWS, ids=[row.id for row in ROWS])
def test_bad_input_exits_1_with_one_line(row: Row, case_dir: Path) -> None:
    (case_dir / "m.yaml").write_text(row.manifest, encoding="utf-8")
    fragment = _materialise(row.fragment, case_dir)
    for command in row.commands:
        result = _run(row, command, case_dir)
        output = result.stdout + result.stderr
        assert result.returncode == row.exit_code, (command, output)
        assert "Traceback" not in output, (command, output)
        assert SECRET not in output, (command, output)
        lines = [line for line in result.stderr.splitlines() if fragment in line]
        assert lines, (command, fragment, output)


def test_the_rows_have_unique_ids() -> None:
    assert len({row.id for row in ROWS}) == len(ROWS)
