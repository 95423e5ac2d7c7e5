"""What a user of a project file (reconciler.yaml) sees from the commands that take
`--env`: the line naming the environment and its services, the binding of an
environment (its paths, var files, a saved plan's environment), the verdict of each
environment of a fleet validate, which environments `--affected-by` picks, the flags that
work with one environment only (refused by name over several), `--sandbox` refused beside
`--env`, and the `environments` listing: the JSON a CI matrix reads byte for byte,
selectable by pattern, text as written, the text listing aligned. Some run the CLI in a
child process as a user does, the rest in-process (click's CliRunner); no service is
reached."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from reconciler.cli import main
from reconciler.errors import UsageError
from reconciler.fleet.dispatch import refuse_sandbox
from reconciler.run.flags import ConnectionFlags, PlanFlags, ValidateFlags
from reconciler.sandbox.start import embedded

PROJECT = """\
environments:
  prod:
    paths: [good]
    helpdesk_url: http://127.0.0.1:9/helpdesk
    workspace_url: http://127.0.0.1:9/workspace
  bad:
    paths: [broken]
"""


def reconciler(cwd: Path, *args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("HELPDESK_", "WORKSPACE_"))}
    return subprocess.run(
        [sys.executable, "-m", "reconciler", *args],
        cwd=cwd,
        env={**env, "NO_COLOR": "1"},
        input=stdin,
        capture_output=True,
        text=True,
        timeout=120,
    )


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "reconciler.yaml").write_text(PROJECT)
    (tmp_path / "good").mkdir()
    (tmp_path / "good" / "c.yaml").write_text("companies:\n  - name: Acme\n")
    (tmp_path / "broken").mkdir()
    (tmp_path / "broken" / "c.yaml").write_text("companies:\n  - nam: Acme\n")
    return tmp_path


def test_one_environment_is_named_with_its_services(project: Path) -> None:
    done = reconciler(project, "validate", "--env", "prod")
    assert done.returncode == 0, done.stderr
    assert (
        "Environment: prod (helpdesk http://127.0.0.1:9/helpdesk, "
        "workspace http://127.0.0.1:9/workspace)\n"
    ) in done.stderr


def test_a_fleet_validate_gives_each_environment_its_verdict_and_exits_1(project: Path) -> None:
    done = reconciler(project, "validate", "--env", "*")
    assert done.returncode == 1, done.stderr
    assert "prod: valid: 1 objects in 1 file(s).\n" in done.stderr
    assert (
        "bad: invalid:\n  broken/c.yaml:2:5: companies[0]: missing required field 'name'\n"
    ) in done.stderr
    assert done.stderr.endswith("Error: 1 of 2 environment(s) invalid.\n")


def test_affected_by_dash_reads_the_names_from_stdin_and_is_no_name_itself(
    tmp_path: Path,
) -> None:
    # An environment of the whole folder: any file in it, `-` too, would affect it.
    (tmp_path / "reconciler.yaml").write_text("environments:\n  all:\n    paths: [.]\n")
    listed = ("environments", "--format", "json", "--affected-by", "-")
    for stdin, names in (("", []), ("c.yaml\n", ["all"]), ("\n  c.yaml  \n", ["all"])):
        done = reconciler(tmp_path, *listed, stdin=stdin)
        assert done.returncode == 0, done.stderr
        assert [row["name"] for row in json.loads(done.stdout)] == names, stdin


# -- in-process (click's CliRunner): the binding of an environment, as a user sees it -----

BOUND = """\
environments:
  prod:
    paths: [good]
    var_files: [vars/a.yaml]
    helpdesk_url: http://127.0.0.1:9/helpdesk
    workspace_url: http://127.0.0.1:9/workspace
  ws:
    paths: [good]
    var_files: [vars/a.yaml]
    workspace_url: http://127.0.0.1:9/workspace
  bare:
    paths: [other]
"""

PROD = "prod (helpdesk http://127.0.0.1:9/helpdesk, workspace http://127.0.0.1:9/workspace)"


@pytest.fixture
def bound(clean_workdir: Path) -> Path:
    (clean_workdir / "reconciler.yaml").write_text(BOUND, encoding="utf-8")
    for folder in ("good", "vars", "other"):
        (clean_workdir / folder).mkdir()
    # ${B} comes from a --var-file given on the command line, ${A} from the environment's.
    (clean_workdir / "good" / "c.yaml").write_text("companies:\n  - name: ${A}\n  - name: ${B}\n")
    (clean_workdir / "other" / "c.yaml").write_text("companies:\n  - nam: X\n")
    (clean_workdir / "vars" / "a.yaml").write_text("A: Alpha\n")
    (clean_workdir / "b.yaml").write_text("B: Beta\n")
    return clean_workdir


def invoke(*args: str) -> Result:
    return CliRunner().invoke(main, list(args), env={"NO_COLOR": "1"})


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ("validate", "good", "--env", "prod"),
            "give manifest PATHS or --env, not both: the paths of an environment are those "
            "reconciler.yaml gives it",
        ),
        (("plan", "good", "--report-file", "r.json"), "--report-file goes with --env"),
        (("plan",), "Missing argument 'PATHS...' (or --env NAME, from reconciler.yaml)"),
        (("apply", "--yes"), "Missing argument 'PATHS...' (or --env NAME, from reconciler.yaml)"),
    ],
)
def test_paths_and_env_refusals_are_whole(bound: Path, args: tuple[str, ...], message: str) -> None:
    result = invoke(*args)
    assert result.exit_code == 1
    assert result.output == f"Error: {message}\n"


def test_the_var_files_given_come_after_the_environments_own(bound: Path) -> None:
    result = invoke("validate", "--env", "prod", "--var-file", "b.yaml")
    assert result.exit_code == 0, result.output
    assert result.output == f"Environment: {PROD}\nValid: 2 objects in 1 file(s).\n"
    alone = invoke("validate", "--env", "prod")
    assert alone.exit_code == 1
    assert alone.output == (
        f"Environment: {PROD}\ngood/c.yaml:3:11: variable 'B' is not set\nError: 1 problem found.\n"
    )
    # A variable in both: the file given on the command line wins (${A} is Beta too).
    (bound / "b.yaml").write_text("A: Beta\nB: Beta\n")
    both = invoke("validate", "--env", "prod", "--var-file", "b.yaml")
    assert both.exit_code == 1
    assert "good/c.yaml:3:5: duplicate companies entry '${B}' (first at good/c.yaml:2:5)\n" in (
        both.output
    )


@pytest.mark.parametrize(
    ("env", "fmt", "stdout", "stderr_start"),
    [
        ("prod", "text", f"Environment: {PROD}\n\n", "good/c.yaml"),
        ("prod", "markdown", f"> **Environment:** `{PROD.replace(' (', '` (', 1)}\n\n", "good"),
        ("prod", "json", "", f"Environment: {PROD}\ngood/c.yaml"),
        ("ws", "text", "Environment: ws (workspace http://127.0.0.1:9/workspace)\n\n", "good"),
        ("bare", "text", "Environment: bare\n\n", "other/c.yaml"),
        ("bare", "markdown", "> **Environment:** `bare`\n\n", "other/c.yaml"),
    ],
)
def test_a_plans_header_names_the_environment_and_its_services(
    bound: Path, env: str, fmt: str, stdout: str, stderr_start: str
) -> None:
    # The manifests are invalid, so nothing is read: the header is printed first all the same.
    result = invoke("plan", "--env", env, "--format", fmt)
    assert result.exit_code == 1
    assert result.stdout == stdout
    assert result.stderr.startswith(stderr_start), result.stderr


def test_a_plan_saved_without_an_environment_is_refused_for_one(bound: Path) -> None:
    from reconciler.plans import Plan
    from reconciler.plans.planfile import PlanInputs, write_plan_file

    write_plan_file(bound / "p.json", Plan((), live_digest="sha256:x"), PlanInputs("sha256:0"))
    result = invoke("apply", "--env", "prod", "--plan", "p.json", "--yes")
    assert result.exit_code == 1
    assert result.stderr == (
        f"Environment: {PROD}\nError: the saved plan was made for no environment, and this "
        "apply runs with --env prod: apply it for the environment it was made for, or plan "
        "again\n"
    )


@pytest.mark.parametrize(
    ("command", "fleet_options"),
    [("plan", {"--max-parallel", "--report-file"}), ("apply", {"--max-parallel", "--report-file"}),
     ("export", {"--max-parallel"}), ("validate", set())],
)  # fmt: skip
def test_each_command_has_the_fleet_options_it_can_use(
    command: str, fleet_options: set[str]
) -> None:
    result = CliRunner().invoke(main, [command, "--help"], terminal_width=200)
    assert result.exit_code == 0, result.output
    shown = {flag for flag in ("--max-parallel", "--report-file") if flag in result.output}
    assert shown == fleet_options
    assert ("--env NAME|PATTERN" in result.output) and ("--project FILE" in result.output)
    if "--max-parallel" in fleet_options:
        assert "[default: 32; x>=0]" in result.output


@pytest.mark.parametrize(
    ("changed", "listing"),
    [
        (("vars/a.yaml",), "prod  http://127.0.0.1:9/helpdesk  good\n"
                           "ws    http://127.0.0.1:9/workspace  good\n"),
        (("other/c.yaml",), "bare  (URLs from the environment)  other\n"),
        (("elsewhere.txt",), ""),
    ],
)  # fmt: skip
def test_affected_by_lists_only_the_environments_a_file_can_change(
    bound: Path, changed: tuple[str, ...], listing: str
) -> None:
    result = invoke("environments", *(a for f in changed for a in ("--affected-by", f)))
    assert result.exit_code == 0, result.output
    assert result.stdout == listing


TWO_TENANTS = """\
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
def two_tenants(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "reconciler.yaml").write_text(TWO_TENANTS, encoding="utf-8")
    (tmp_path / "base").mkdir()
    (tmp_path / "base" / "c.yaml").write_text("companies:\n  - name: Acme\n", encoding="utf-8")
    (tmp_path / "acme").mkdir()
    (tmp_path / "vars").mkdir()
    (tmp_path / "vars" / "acme.yaml").write_text("region: eu\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    for name in ("HELPDESK_URL", "WORKSPACE_URL", "HELPDESK_TOKEN", "ACME_HELPDESK_TOKEN"):
        monkeypatch.delenv(name, raising=False)
    return tmp_path


def test_the_json_listing_is_the_documented_shape_byte_for_byte(two_tenants: Path) -> None:
    # A CI job keeps this output (a matrix file, a diff in review): it is stable to the byte,
    # two-space indented like every JSON reconciler prints, one newline at the end.
    result = CliRunner().invoke(main, ["environments", "--format", "json"])
    assert result.exit_code == 0, result.output
    assert result.stdout == LISTING


def test_the_text_listing_aligns_the_names(two_tenants: Path) -> None:
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
    two_tenants: Path, args: list[str], flag: str
) -> None:
    (two_tenants / "p.json").write_text("{}", encoding="utf-8")
    result = CliRunner().invoke(main, [*args, "--env", "*"])
    assert result.exit_code == 1
    assert result.output == f"Error: {flag} works with one environment: give one --env NAME\n"


def test_a_fleet_validate_in_process_gives_each_environment_its_verdict(two_tenants: Path) -> None:
    (two_tenants / "acme" / "u.yaml").write_text("companies:\n  - nam: Globex\n", encoding="utf-8")
    result = CliRunner().invoke(main, ["validate", "--env", "*"])
    assert result.exit_code == 1, result.output
    assert result.output == (
        "acme: invalid:\n  acme/u.yaml:2:5: companies[0]: missing required field 'name'\n"
        "  acme/u.yaml:2:5: companies[0]: unknown field 'nam'; did you mean 'name'?\n"
        "globex: valid: 1 objects in 1 file(s).\n"
        "Error: 1 of 2 environment(s) invalid.\n"
    )


def test_the_json_listing_can_be_selected_by_pattern(two_tenants: Path) -> None:
    result = CliRunner().invoke(main, ["environments", "--env", "g*", "--format", "json"])
    assert result.exit_code == 0, result.output
    assert [row["name"] for row in json.loads(result.stdout)] == ["globex"]


DESCRIBED = """\
environments:
  prod:
    description: Produktion München
    paths: [base]
    helpdesk_url: http://127.0.0.1:9/helpdesk
  ws-only:
    paths: [base]
    workspace_url: http://127.0.0.1:9/workspace
"""


@pytest.fixture
def described(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "reconciler.yaml").write_text(DESCRIBED, encoding="utf-8")
    (tmp_path / "base").mkdir()
    (tmp_path / "base" / "c.yaml").write_text("companies:\n  - name: Acme\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    for name in ("HELPDESK_URL", "WORKSPACE_URL", "HELPDESK_TOKEN", "WORKSPACE_TOKEN"):
        monkeypatch.delenv(name, raising=False)
    return tmp_path


@pytest.mark.parametrize(
    "command", [("plan",), ("apply", "--yes"), ("export", "--out", "exported")]
)
def test_sandbox_beside_one_environment_is_refused_before_anything_is_written(
    described: Path, command: tuple[str, ...]
) -> None:
    result = CliRunner().invoke(main, [*command, "--env", "prod", "--sandbox"])
    assert result.exit_code == 1
    assert result.output == (
        "Error: --sandbox and --env contradict each other: an environment names its URLs\n"
    )
    assert sorted(p.name for p in described.iterdir()) == ["base", "reconciler.yaml"]


def test_the_listing_keeps_text_as_written_and_names_a_workspace_only_url(described: Path) -> None:
    listed = CliRunner().invoke(main, ["environments", "--format", "json"])
    assert listed.exit_code == 0, listed.output
    assert '"description": "Produktion München",' in listed.stdout
    text = CliRunner().invoke(main, ["environments"])
    assert text.stdout == (
        "prod     http://127.0.0.1:9/helpdesk  base\nws-only  http://127.0.0.1:9/workspace  base\n"
    )


def test_sandbox_beside_an_environment_is_refused_saying_the_environment_names_its_urls() -> None:
    refuse_sandbox(PlanFlags())
    refuse_sandbox(ValidateFlags())
    with pytest.raises(UsageError) as refused:
        refuse_sandbox(PlanFlags(connection=ConnectionFlags(sandbox=embedded("acme"))))
    assert str(refused.value) == (
        "--sandbox and --env contradict each other: an environment names its URLs"
    )
