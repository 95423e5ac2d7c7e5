"""Output paths are checked before any call: `plan --out`, `--comment-dir`, `apply --log`,
`export --out` under a regular file, and a sandbox `--db` that is not SQLite, are one line
naming the path and why (exit 1, nothing written); so is `--sandbox` where its database
cannot be made. Rows as tests/hardening/table.py runs them."""

# ruff: noqa: E501  (a row is one line, whatever its length: adding a case is adding a line)

from __future__ import annotations

from pathlib import Path

import pytest

from reconciler.sandbox.process import SandboxProcess
from tests.e2e.test_plan_cli import run
from tests.hardening.table import OK, Row, check_rows, run_row

ROWS = [
    Row("plan --out under a regular file", "plan m.yaml --out {tmp}/afile/p.json", 1, "--out {tmp}/afile/p.json: {tmp}/afile is a file, not a directory", setup="afile"),
    Row("plan --comment-dir under a regular file", "plan m.yaml --comment-dir {tmp}/afile/c", 1, "--comment-dir {tmp}/afile/c: {tmp}/afile is a file, not a directory", setup="afile"),
    Row("apply --log under a regular file", "apply m.yaml --yes --log {tmp}/afile/apply.jsonl", 1, "--log {tmp}/afile/apply.jsonl: {tmp}/afile is a file, not a directory", setup="afile"),
    Row("export --out under a regular file", "export --out {tmp}/afile/out", 1, "--out {tmp}/afile/out: {tmp}/afile is a file, not a directory", setup="afile"),
    Row("export --out is a regular file", "export --out {tmp}/afile", 1, "Invalid value for '--out': Directory '{tmp}/afile' is a file", setup="afile"),
    Row("sandbox serve --db on a non-SQLite file", "sandbox serve --port 0 --db {tmp}/afile", 1, "the sandbox database {tmp}/afile: file is not a database", setup="afile"),
]  # fmt: skip


@pytest.mark.parametrize("row", ROWS, ids=[row.id for row in ROWS])
def test_the_row_exits_with_its_message_and_writes_nothing(
    row: Row, sandbox: SandboxProcess, tmp_path: Path
) -> None:
    run_row(row, sandbox, tmp_path)


def test_the_rows_have_unique_ids_and_known_setups() -> None:
    check_rows(ROWS)


@pytest.mark.parametrize(
    ("folder", "reason"),
    [("{tmp}", "File exists"), ("/proc/self", "")],
    ids=[".reconciler is a file", "a read-only folder"],
)
def test_the_sandbox_where_its_database_cannot_be_made_is_one_line(
    folder: str, reason: str, tmp_path: Path
) -> None:
    (tmp_path / ".reconciler").write_text("not a folder\n", encoding="utf-8")
    (tmp_path / "m.yaml").write_text(OK, encoding="utf-8")
    result = run(Path(folder.format(tmp=tmp_path)), "plan", str(tmp_path / "m.yaml"), "--sandbox")
    assert result.returncode == 1
    assert result.stderr.startswith(
        f"Error: the sandbox database .reconciler/sandbox.db cannot be made: {reason}"
    ), result.stderr
    assert result.stderr.endswith(
        "(run from a folder that can be written, or give `sandbox serve` a --db there)\n"
    )
    assert len(result.stderr.splitlines()) == 1
