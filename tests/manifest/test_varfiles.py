"""`--var-file`: variables fill `${NAME}` before the environment; later files win; every
problem is reported at its place; the commands accept it."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from reconciler.cli import main
from reconciler.errors import ManifestError
from reconciler.manifest.loader import load_manifests
from reconciler.manifest.varfiles import load_var_files

MANIFEST = """\
companies:
  - name: ${COMPANY}
    notes: "tier ${TIER}, domain ${DOMAIN}"
"""


def write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


def test_values_keep_their_spelling(tmp_path: Path) -> None:
    text = 'A: "quoted"\nB: 0012\nC: 2027-01-31\nD: true\nE: 1.50\nF: False\n'
    text += "G: 2026-01-05 10:00:00\nH: 2026-01-05t10:00:00.50+01:00\nI: 0x1F\n"
    file = write(tmp_path / "v.yaml", text)
    assert load_var_files([file]) == {
        "A": "quoted",
        "B": "0012",
        "C": "2027-01-31",
        "D": "true",
        "E": "1.50",
        "F": "false",  # a boolean as the manifests' YAML 1.2 writes it
        "G": "2026-01-05 10:00:00",  # a date and time as written, not in ISO form
        "H": "2026-01-05t10:00:00.50+01:00",
        "I": "0x1F",
    }


def test_var_files_win_over_the_environment_and_later_files_win(tmp_path: Path) -> None:
    manifest = write(tmp_path / "m.yaml", MANIFEST)
    common = write(tmp_path / "common.yaml", "COMPANY: Acme\nTIER: silver\n")
    prod = write(tmp_path / "prod.yaml", "TIER: gold\n")
    variables = load_var_files([common, prod])
    env = {"COMPANY": "FromEnv", "DOMAIN": "acme.com", "TIER": "bronze"}
    company = load_manifests([manifest], env, variables).manifest.companies[0]
    assert company.name == "Acme"
    assert company.notes == "tier gold, domain acme.com"


def test_every_problem_is_located(tmp_path: Path) -> None:
    bad = write(tmp_path / "bad.yaml", "OK: 1\nbad-name: 2\nLIST: [1]\nEMPTY:\n")
    listed = write(tmp_path / "list.yaml", "- A\n")
    empty = write(tmp_path / "empty.yaml", "# nothing set yet\n")
    with pytest.raises(ManifestError) as caught:
        load_var_files([bad, listed, empty, tmp_path / "missing.yaml"])
    assert caught.value.problems == [
        f"{bad}:2:1: 'bad-name' is not a variable name (letters, digits, _)",
        f"{bad}:3:7: LIST: a variable's value is text, a number or a bool",
        f"{bad}:4:1: EMPTY: a variable's value is text, a number or a bool",
        f"{listed}:1:1: a variables file holds one mapping of NAME: value",
        f"{empty}:1:1: a variables file holds one mapping of NAME: value",
        f"{tmp_path / 'missing.yaml'}:1:1: cannot read the variables file: "
        "No such file or directory",
    ]


def test_the_commands_take_var_files(tmp_path: Path) -> None:
    manifest = write(tmp_path / "m.yaml", MANIFEST)
    staging = write(tmp_path / "staging.yaml", "COMPANY: Acme Staging\nTIER: t\nDOMAIN: d\n")
    runner = CliRunner()
    ok = runner.invoke(main, ["validate", str(manifest), "--var-file", str(staging)])
    assert ok.exit_code == 0, ok.output
    missing = runner.invoke(main, ["validate", str(manifest)], env={"COMPANY": None})
    assert missing.exit_code == 1
    assert "COMPANY" in missing.output and "Traceback" not in missing.output
    broken = write(tmp_path / "broken.yaml", "- x\n")
    bad = runner.invoke(main, ["plan", str(manifest), "--var-file", str(broken), "--sandbox"])
    assert bad.exit_code == 1 and f"{broken}:1:1:" in bad.output
