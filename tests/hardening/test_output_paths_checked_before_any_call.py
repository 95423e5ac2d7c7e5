"""Output paths are checked before any call: `plan --out`, `--comment-dir`, `apply --log`,
`export --out` under a regular file, and a sandbox `--db` that is not SQLite, are one line
naming the path and why (exit 1, nothing written). Rows as tests/hardening/table.py runs
them."""

# ruff: noqa: E501  (a row is one line, whatever its length: adding a case is adding a line)

from __future__ import annotations

from pathlib import Path

import pytest

from reconciler.sandbox.process import SandboxProcess
from tests.hardening.table import Row, check_rows, run_row

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
