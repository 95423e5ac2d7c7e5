"""What a user of a project file (reconciler.yaml) gets from the CLI in-process (click's
CliRunner; no service is reached): the JSON listing of the environments a CI matrix reads,
byte for byte; the flags that work with one environment only, refused by name before
anything is read; a fleet validate's verdicts; and the exit codes at the end of each
command's --help."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from reconciler.cli import main

PROJECT = """\
environments:
  acme:
    description: The Acme tenant
    paths: [base, acme]
    var_files: [vars/acme.yaml]
    helpdesk_url: https://acme.example.com/helpdesk
    workspace_url: https://ws.acme.example.com
    credentials: {HELPDESK_TOKEN: ACME_HELPDESK_TOKEN}
    wave: 1
  globex:
    paths: [base]
    wave: 2
"""

LISTING = """\
[
  {
    "name": "acme",
    "description": "The Acme tenant",
    "paths": [
      "base",
      "acme"
    ],
    "var_files": [
      "vars/acme.yaml"
    ],
    "helpdesk_url": "https://acme.example.com/helpdesk",
    "workspace_url": "https://ws.acme.example.com",
    "credentials": {
      "HELPDESK_TOKEN": "ACME_HELPDESK_TOKEN"
    },
    "wave": 1
  },
  {
    "name": "globex",
    "description": null,
    "paths": [
      "base"
    ],
    "var_files": [],
    "helpdesk_url": null,
    "workspace_url": null,
    "credentials": {},
    "wave": 2
  }
]
"""


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "reconciler.yaml").write_text(PROJECT, encoding="utf-8")
    (tmp_path / "base").mkdir()
    (tmp_path / "base" / "c.yaml").write_text("companies:\n  - name: Acme\n", encoding="utf-8")
    (tmp_path / "acme").mkdir()
    (tmp_path / "vars").mkdir()
    (tmp_path / "vars" / "acme.yaml").write_text("region: eu\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    for name in ("HELPDESK_URL", "WORKSPACE_URL", "HELPDESK_TOKEN", "ACME_HELPDESK_TOKEN"):
        monkeypatch.delenv(name, raising=False)
    return tmp_path


def test_the_json_listing_is_the_documented_shape_byte_for_byte(project: Path) -> None:
    # A CI job keeps this output (a matrix file, a diff in review): it is stable to the byte,
    # two-space indented like every JSON reconciler prints, one newline at the end.
    result = CliRunner().invoke(main, ["environments", "--format", "json"])
    assert result.exit_code == 0, result.output
    assert result.stdout == LISTING


def test_the_text_listing_aligns_the_names(project: Path) -> None:
    result = CliRunner().invoke(main, ["environments"])
    assert result.exit_code == 0, result.output
    assert result.stdout == (
        "acme    https://acme.example.com/helpdesk  base acme\n"
        "globex  (URLs from the environment)  base\n"
    )


@pytest.mark.parametrize(
    ("args", "flag"),
    [
        (["plan", "--out", "p.json"], "--out"),
        (["plan", "--changed-since", "HEAD"], "--changed-since"),
        (["apply", "--plan", "p.json"], "--plan"),
        (["apply", "--changed-since", "HEAD"], "--changed-since"),
    ],
)
def test_flags_of_one_environment_are_refused_by_name_over_several(
    project: Path, args: list[str], flag: str
) -> None:
    (project / "p.json").write_text("{}", encoding="utf-8")
    result = CliRunner().invoke(main, [*args, "--env", "*"])
    assert result.exit_code == 1
    assert result.output == f"Error: {flag} works with one environment: give one --env NAME\n"


def test_a_fleet_validate_in_process_gives_each_environment_its_verdict(project: Path) -> None:
    (project / "acme" / "u.yaml").write_text("companies:\n  - nam: Globex\n", encoding="utf-8")
    result = CliRunner().invoke(main, ["validate", "--env", "*"])
    assert result.exit_code == 1, result.output
    assert result.output == (
        "acme: invalid:\n  acme/u.yaml:2:5: companies[0]: missing required field 'name'\n"
        "  acme/u.yaml:2:5: companies[0]: unknown field 'nam'; did you mean 'name'?\n"
        "globex: valid: 1 objects in 1 file(s).\n"
        "Error: 1 of 2 environment(s) invalid.\n"
    )


# What each command's --help ends with (its own exit codes), as a user reads them.
EXIT_CODES = {
    "validate": "Exit codes: 0 valid (warnings allowed); 1 any problem in the manifests, "
    "usage errors included; 130 interrupted.",
    "schema": "Exit codes: 0 the schema was printed; 1 usage errors included; 130 interrupted.",
    "export": "Exit codes: 0 exported; 1 any error, usage errors included; 130 interrupted.",
    "environments": "Exit codes: 0 listed; 1 any error, usage errors included (no project "
    "file, a bad one, a pattern that matches no environment); 130 interrupted.",
    "apply": "Exit codes: 0 applied, or nothing to apply; 1 any error, usage errors included "
    '(a change that failed, the safety brake holding, the confirmation declined: "Apply '
    'cancelled."); 130 interrupted (the summary says what was done).',
    "plan": "Exit codes: 0 success (with --detailed-exitcode: no changes); 1 any error, "
    "usage errors included (and unmanaged objects with plan --fail-on-unmanaged); 2 changes "
    "present (only with --detailed-exitcode); 130 interrupted.",
    "drift-issue": "Exit codes: 0 the issue opened, updated, closed or left as it was; 1 any "
    "error, usage errors included (a plan with errors: a failed job, not drift); 130 "
    "interrupted.",
    "sandbox serve": "Exit codes: 0 the sandbox stopped (Ctrl-C or SIGTERM); 1 any error, "
    "usage errors included (a bad seed, the port or the database in use).",
}


@pytest.mark.parametrize("command", sorted(EXIT_CODES))
def test_each_help_ends_with_the_exit_codes_of_its_command(command: str) -> None:
    result = CliRunner().invoke(main, [*command.split(), "--help"], terminal_width=200)
    assert result.exit_code == 0, result.output
    # click wraps after a hyphen too: "--detailed-" at a line's end goes on with "exitcode".
    text = re.sub(r"-\n\s+", "-", result.output.strip())
    last = " ".join(text.split("\n\n")[-1].split())
    assert last == EXIT_CODES[command]
    # Only the codes of the exit-code table (docs/commands.md): 0, 1, 2, 130.
    assert set(re.findall(r"(?:^|; )(\d+) ", last.removeprefix("Exit codes: "))) <= {
        "0",
        "1",
        "2",
        "130",
    }


def test_the_json_listing_can_be_selected_by_pattern(project: Path) -> None:
    result = CliRunner().invoke(main, ["environments", "--env", "g*", "--format", "json"])
    assert result.exit_code == 0, result.output
    assert [row["name"] for row in json.loads(result.stdout)] == ["globex"]
