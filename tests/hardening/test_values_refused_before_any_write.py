"""Values that would pass and then fail or corrupt are refused before anything is written,
and what a first-day user runs into says what to do. Each row runs `python -m reconciler` in a child process, as a user
does (the runner and the fixture are tests/manifest/test_bad_input.py's), and checks the
exit code, the message (on the stream the row names), that no traceback and no credential
is printed, and that nothing was written.

Nothing listens at the HELPDESK_URL the runner sets, so a row that is refused before any
call writes nothing by construction; a row run against the embedded sandbox (`--sandbox`,
its state in the test's `.reconciler/sandbox.db`) compares the sandbox's records before and
after."""

# ruff: noqa: E501  (a row is one line, whatever its length: adding a case is adding a line)

from __future__ import annotations

import os
import sqlite3
import subprocess
from dataclasses import dataclass, field, replace
from pathlib import Path

import pytest
from click.testing import CliRunner
from filelock import FileLock

from reconciler.cli import main
from reconciler.sandbox.config import FAULT_SETTINGS, QUIRKS, FaultConfig, builtin_seed_names
from tests.manifest.test_bad_input import OK, SECRET, Row, _run, case_dir

__all__ = ["case_dir"]  # the fixture, reused

SANDBOX = ("--sandbox",)
PLAN_SANDBOX = ("plan",)
BOTH_SANDBOX = ("plan", "apply --yes")
LOOKALIKE = 'companies: [{name: "\u0410\u0441me Corp"}]'  # a Cyrillic A and c


@dataclass(frozen=True)
class ValueRow(Row):
    stream: str = "stderr"  # where the fragment is printed
    files: dict[str, str] = field(default_factory=dict)  # more files, by path
    links: dict[str, str] = field(default_factory=dict)  # symbolic links: path -> target
    locked: bool = False  # another sandbox holds the database


ROWS = [
    # e-mails both services accept, before anything is written
    ValueRow("e-mail without a dot in the domain", "users: [{username: a, email: a@b}]", 1, "m.yaml:1:30: users[0].email: 'a@b' is not an e-mail address: the domain 'b' has no '.', and the workspace service refuses such an address"),
    ValueRow("employee e-mail without a dot", "workspace: {employees: [{email: 'bob@corp'}]}", 1, "workspace.employees[0].email: 'bob@corp' is not an e-mail address: the domain 'corp' has no '.'"),
    ValueRow("a@b never reaches the sandbox", "users: [{username: a, email: a@b}]", 1, "'a@b' is not an e-mail address", SANDBOX, commands=BOTH_SANDBOX),
    # special numbers in custom fields
    ValueRow("unquoted .inf in a custom field", "users:\n  - username: a\n    custom_fields:\n      Employee ID: .inf\n", 1, "m.yaml:4:20: users[0].custom_fields[\"Employee ID\"]: inf is not a value a field can hold: YAML reads an unquoted .inf or .nan as a special number; quote it (for example '.inf') to write it as text"),
    ValueRow("unquoted -.inf in a custom field", "companies: [{name: A, custom_fields: {Account manager: -.Inf}}]", 1, "companies[0].custom_fields[\"Account manager\"]: -inf is not a value a field can hold"),
    ValueRow("unquoted .nan in a custom field", "assets: [{serial_number: S, custom_fields: {Purchase order: .NaN}}]", 1, "assets[0].custom_fields[\"Purchase order\"]: nan is not a value a field can hold"),
    # control and invisible characters
    ValueRow("NUL in a company's name", 'companies: [{name: "Acme\\0Corp"}]', 1, "m.yaml:1:13: the companies key 'Acme\\x00Corp' holds a control character (U+0000) at position 5"),
    ValueRow("ESC in a category's name", 'categories: [{name: "IT\\e[31m"}]', 1, "the categories key 'IT\\x1b[31m' holds a control character (U+001B) at position 3"),
    ValueRow("newline in a username", 'users: [{username: "a\\nb", email: a@acme.com}]', 1, "the users key 'a\\nb' holds a control character (U+000A) at position 2"),
    ValueRow("zero-width space in a key", 'companies: [{name: "Acme\\u200bCorp"}]', 1, "the companies key 'Acme\\u200bCorp' holds an invisible character (U+200B ZERO WIDTH SPACE) at position 5"),
    ValueRow("soft hyphen in a department", 'departments: [{name: "Sa\\u00adles"}]', 1, "holds an invisible character (U+00AD SOFT HYPHEN) at position 3"),
    ValueRow("invisible character in a reference", 'users: [{username: a, email: a@acme.com, company: "Acme\\u2060Corp"}]', 1, "m.yaml:1:51: the companies name 'Acme\\u2060Corp' holds an invisible character (U+2060 WORD JOINER)"),
    ValueRow("control character in a first name", 'users: [{username: a, email: a@acme.com, first_name: "Al\\x07"}]', 1, "first_name 'Al\\x07' holds a control character (U+0007) at position 3"),
    ValueRow("look-alike of a live company (TR39)", LOOKALIKE, 0, "companies '\u0410\u0441me Corp' and the live 'Acme Corp' (id 1) are one name only after Unicode normalisation (NFKC, TR39 confusables)", SANDBOX, commands=PLAN_SANDBOX),
    # a company no call can delete, created by side effect
    ValueRow("unknown company a user names", "users: [{username: newbie, email: newbie@acme.com, company: Acme Crop}]", 1, "company 'Acme Crop' is neither live nor in the manifests: the helpdesk would create it as a side effect, and a company cannot be deleted; did you mean 'Acme Corp'", SANDBOX, commands=BOTH_SANDBOX),
    # contradictory selections
    ValueRow("--target and --exclude of one kind", OK, 1, "--target companies and --exclude companies contradict each other", ("--target", "companies", "--exclude", "companies"), commands=("plan", "apply --yes")),
    ValueRow("--target of a key in an excluded kind", OK, 1, "--target companies/Acme and --exclude companies contradict each other", ("--target", "companies/Acme", "--exclude", "companies"), commands=("plan",)),
    # symbolic links in a manifest directory
    ValueRow("symbolic link loop", OK, 1, "symbolic link loop: tree/back points to", paths=("tree",), files={"tree/m.yaml": OK}, links={"tree/back": "."}, commands=("validate",)),
    ValueRow("symlinked subdirectory is read", OK, 1, "tree/linked/bad.yaml:1:30: users[0].email: 'a@b'", paths=("tree",), files={"tree/m.yaml": OK, "elsewhere/bad.yaml": "users: [{username: a, email: a@b}]"}, links={"tree/linked": "../elsewhere"}, commands=("validate",)),
    ValueRow("a manifest linked to a file outside the tree", OK, 1, "tree/evil.yaml is a symbolic link to /etc/passwd, outside the working directory ", paths=("tree",), files={"tree/m.yaml": OK}, links={"tree/evil.yaml": "/etc/passwd"}, commands=("validate", "plan")),
    ValueRow("a directory linked outside the tree", OK, 1, "tree/etc is a symbolic link to /etc, outside the working directory ", paths=("tree",), files={"tree/m.yaml": OK}, links={"tree/etc": "/etc"}, commands=("validate",)),
    ValueRow("a given manifest that links outside the tree", OK, 1, "given.yaml:1:1: given.yaml is a symbolic link to /etc/passwd, outside the working directory ", paths=("given.yaml",), links={"given.yaml": "/etc/passwd"}, commands=("validate",)),
    # first-day items
    ValueRow("a plan error is on stderr", "companies:\n  - name: Acme Corp\n    custom_fields:\n      Nope: x\n", 1, "Error: companies[\"Acme Corp\"]: custom field 'Nope' does not exist", SANDBOX, commands=PLAN_SANDBOX),
    ValueRow("a custom field error points at the field", "companies:\n  - name: Acme Corp\n    custom_fields:\n      Nope: x\n", 1, "  at m.yaml:4:13", SANDBOX, commands=PLAN_SANDBOX),
    ValueRow("a dropdown by an unnamed option id", "companies:\n  - name: Acme Corp\n    custom_fields:\n      Contract tier: {option_id: 99}\n", 0, '"option 99"', SANDBOX, commands=PLAN_SANDBOX, stream="stdout"),
    ValueRow("--sandbox says HELPDESK_URL is ignored", OK, 0, "Warning: --sandbox is used: HELPDESK_URL (exported) is ignored", SANDBOX, commands=PLAN_SANDBOX),
    ValueRow("--sandbox beside a running sandbox", OK, 1, "another sandbox is running on .reconciler/sandbox.db", SANDBOX, commands=BOTH_SANDBOX, locked=True),
    ValueRow("--faults names the settings plainly", OK, 1, "--faults: unknown fault setting 'bogus=1'; known: drop, drop_rate, error", ("--faults", "bogus=1", "--port", "0"), commands=("sandbox serve",), paths=()),
]  # fmt: skip


def _records(db: Path) -> list[tuple[object, ...]]:
    """The sandbox's state (its records and id sequences), to compare before and after."""
    with sqlite3.connect(db) as connection:
        rows = connection.execute("SELECT * FROM records ORDER BY 1, 2").fetchall()
        return rows + connection.execute("SELECT * FROM sequences ORDER BY 1").fetchall()


def _prepare(row: ValueRow, where: Path) -> None:
    (where / "m.yaml").write_text(row.manifest, encoding="utf-8")
    for name, text in row.files.items():
        (where / name).parent.mkdir(parents=True, exist_ok=True)
        (where / name).write_text(text, encoding="utf-8")
    for name, target in row.links.items():
        os.symlink(target, where / name)


@pytest.mark.parametrize("row", ROWS, ids=[row.id for row in ROWS])
def test_the_row_exits_with_its_message_and_writes_nothing(row: ValueRow, case_dir: Path) -> None:
    db = case_dir / ".reconciler" / "sandbox.db"
    before = None
    if "--sandbox" in row.args:  # the sandbox seeded by a plan, which writes nothing
        (case_dir / "seed.yaml").write_text(OK, encoding="utf-8")
        seeding = replace(row, args=SANDBOX, paths=("seed.yaml",), commands=("plan",))
        seeded = _run(seeding, "plan", case_dir)
        assert seeded.returncode == 0, seeded.stderr
        before = _records(db)
    _prepare(row, case_dir)
    for command in row.commands:
        if row.locked:
            with FileLock(str(db) + ".lock", timeout=0):
                result = _run(row, command, case_dir)
        else:
            result = _run(row, command, case_dir)
        _check(row, command, result)
        if before is not None:
            assert _records(db) == before, (command, "the sandbox was written to")


def _check(row: ValueRow, command: str, result: subprocess.CompletedProcess[str]) -> None:
    output = result.stdout + result.stderr
    assert result.returncode == row.exit_code, (command, output)
    assert "Traceback" not in output and "internal error" not in output, (command, output)
    assert SECRET not in output, (command, output)
    shown = result.stdout if row.stream == "stdout" else result.stderr
    assert row.fragment in shown, (command, row.fragment, output)
    if row.exit_code == 1 and row.stream == "stderr":
        # the reason is on stderr, where a CI job that keeps only stderr finds it
        assert row.fragment not in result.stdout, (command, result.stdout)


def test_the_rows_have_unique_ids() -> None:
    assert len({row.id for row in ROWS}) == len(ROWS)


def test_the_help_lists_what_the_sandbox_defines() -> None:
    """The seeds, quirks and fault settings in --help come from where they are defined."""
    assert "acme-catalogue" in builtin_seed_names()
    for setting in FAULT_SETTINGS:  # each one FaultConfig.parse takes
        FaultConfig.parse(f"{setting}=1")
    text = "".join(CliRunner().invoke(main, ["sandbox", "serve", "--help"]).output.split())
    assert all(name in text for name in QUIRKS), text
    assert "acme,acme-catalogue,empty" in text
