"""A saved plan names nothing that `apply --plan` reads: its var files are recorded by
path (shown only) and digest, `apply --plan` takes them from its own `--var-file` and
refuses other content, and a plan saved by an earlier version that names var files is
refused. Rows as tests/hardening/table.py runs them."""

# ruff: noqa: E501  (a row is one line, whatever its length: adding a case is adding a line)

from __future__ import annotations

from pathlib import Path

import pytest

from reconciler.sandbox.process import SandboxProcess
from tests.e2e.test_plan_cli import run
from tests.hardening.table import (
    WITH_VARIABLE,
    Case,
    Row,
    basic_env,
    check_rows,
    run_row,
    saved_plan,
)

ROWS = [
    Row("saved plan naming /etc/shadow-like file", "apply m.yaml --plan {tmp}/p.json --yes", 1, "p.json: made_from.var_files[0]: expected an object, found a string", manifest=WITH_VARIABLE, setup="plan_names_shadow"),
    Row("saved plan with the shadow file's digest", "apply m.yaml --plan {tmp}/p.json --yes", 1, "the saved plan was made with --var-file {tmp}/shadow.txt (sha256:", manifest=WITH_VARIABLE, setup="plan_digests_shadow"),
    Row("var file with other content", "apply m.yaml --plan {tmp}/p.json --var-file {tmp}/other.yaml --yes", 1, "--var-file {tmp}/other.yaml: its content differs from that of the var file the saved plan was made with (--var-file vars.yaml (sha256:", manifest=WITH_VARIABLE, setup="saved_plan"),
    Row("old saved plan naming var files", "apply m.yaml --plan {tmp}/p.json --var-file {tmp}/vars.yaml --yes", 1, "made_from.var_files: var files recorded by path only (a plan saved by an earlier version): plan again with --out", manifest=WITH_VARIABLE, setup="plan_of_version_1"),
]  # fmt: skip


@pytest.mark.parametrize("row", ROWS, ids=[row.id for row in ROWS])
def test_the_row_exits_with_its_message_and_writes_nothing(
    row: Row, sandbox: SandboxProcess, tmp_path: Path
) -> None:
    run_row(row, sandbox, tmp_path)


def test_the_rows_have_unique_ids_and_known_setups() -> None:
    check_rows(ROWS)


def test_the_same_var_files_are_accepted(sandbox: SandboxProcess, tmp_path: Path) -> None:
    """The control of the saved-plan rows: the var file the plan was made with, given
    again (from another path, the same content), is accepted; the plan is then applied."""
    env = basic_env(sandbox, tmp_path)
    (tmp_path / "m.yaml").write_text(WITH_VARIABLE, encoding="utf-8")
    saved_plan(Case(tmp_path, sandbox, env))
    (tmp_path / "copy.yaml").write_bytes((tmp_path / "vars.yaml").read_bytes())
    result = run(
        tmp_path, "apply", "m.yaml", "--plan", "p.json", "--var-file", "copy.yaml", "--yes", env=env
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "contradict" not in result.stderr and "differs" not in result.stderr


@pytest.mark.parametrize("depth", [990, 100_000])
def test_a_plan_file_nested_too_deeply_is_one_line(
    depth: int, sandbox: SandboxProcess, tmp_path: Path
) -> None:
    """Arrays nested past the JSON parser's depth inside a saved plan: a plan-file error,
    not a RecursionError."""
    env = basic_env(sandbox, tmp_path)
    (tmp_path / "m.yaml").write_text(WITH_VARIABLE, encoding="utf-8")
    saved_plan(Case(tmp_path, sandbox, env))
    text = (tmp_path / "p.json").read_text(encoding="utf-8")
    deep = "[" * depth + "]" * depth
    (tmp_path / "p.json").write_text(text.replace('"changes": [', f'"changes": [{deep}, ', 1))
    result = run(tmp_path, "apply", "m.yaml", "--plan", "p.json", "--yes", env=env)
    assert result.returncode == 1
    assert result.stderr == "p.json: nested too deeply to be a plan file\nError: 1 problem found.\n"
