"""Malformed manifests are data: each file under cases/ ends with `# expect: LINE:COL:
message` lines (its own file name is implied), and each directory holds an `expected` file
of complete `file:line:column: message` lines. `validate_manifests` (what `reconciler
validate` runs) must raise ManifestError with exactly those problems, in that order, and
open no connection. Adding a case is adding a file."""

from __future__ import annotations

from pathlib import Path

import pytest

from reconciler.errors import ManifestError
from reconciler.manifest.validate import validate_manifests

CASES = Path(__file__).parent / "cases"
ALL = sorted(CASES.iterdir())
ENV = {"ALICE_EMAIL": "alice@acme.com"}
MARK = "# expect: "


def expected(case: Path) -> list[str]:
    if case.is_dir():
        return (case / "expected").read_text(encoding="utf-8").splitlines()
    # Some cases are not UTF-8 on purpose; their expectations are ASCII.
    text = case.read_bytes().decode("utf-8", errors="replace")
    return [
        f"{case.name}:{line[len(MARK) :]}" for line in text.splitlines() if line.startswith(MARK)
    ]


def test_there_are_enough_cases_and_each_expects_something() -> None:
    assert len(ALL) >= 25
    for case in ALL:
        assert expected(case), f"{case.name} expects no problem"


@pytest.mark.parametrize("case", ALL, ids=[case.name for case in ALL])
@pytest.mark.usefixtures("no_network")
def test_malformed_manifest(case: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(CASES)
    with pytest.raises(ManifestError) as caught:
        validate_manifests([Path(case.name)], ENV)
    assert caught.value.problems == expected(case)
    assert str(caught.value) == "\n".join(caught.value.problems)


@pytest.mark.parametrize("case", ALL, ids=[case.name for case in ALL])
@pytest.mark.usefixtures("no_network")
def test_malformed_manifest_through_the_command(
    case: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What a user sees: `reconciler validate` and `reconciler plan` print every problem
    with its place, exit 1, print no traceback, and (plan) open no connection."""
    from click.testing import CliRunner

    from reconciler.cli import main

    monkeypatch.chdir(CASES)
    for name, value in ENV.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setenv("HELPDESK_URL", "http://127.0.0.1:9/helpdesk")
    monkeypatch.setenv("HELPDESK_TOKEN", "unused")
    for command in ("validate", "plan"):
        result = CliRunner().invoke(main, [command, case.name])
        assert result.exit_code == 1, (command, result.output)
        assert "Traceback" not in result.output
        for problem in expected(case):
            assert problem in result.output, (command, problem)
