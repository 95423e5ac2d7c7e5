"""`plan`/`apply`/`validate --env A --env B` (fleet/commands.py) in-process (click's CliRunner),
against one `sandbox serve` process on a free loopback port that two environments share,
and a third environment on a loopback port nothing listens on: each plan whole in the
project's order, then the summary; the JSON document (names kept as written, not `\\u`
escapes); each environment's Markdown part, and the Markdown document whole; the exit
codes; the refusals made before anything is read."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from reconciler.cli import main
from reconciler.sandbox.process import SandboxProcess
from tests.cli.conftest import fleet_project

MANIFEST = "companies:\n  - name: Zeta Ltd\n  - name: Acme Corp\n"


@pytest.fixture
def project(clean_workdir: Path, sandbox: SandboxProcess, monkeypatch: pytest.MonkeyPatch) -> Path:
    return fleet_project(
        clean_workdir, sandbox, monkeypatch, MANIFEST, up=("prod", "stage"), down=("down",)
    )


def run(*args: str) -> Result:
    return CliRunner().invoke(main, list(args), env={"NO_COLOR": "1"})


def durations(text: str) -> str:
    return re.sub(r"\b\d+\.\ds\b", "N.Ns", text)


UNMANAGED = '"Acme Field Services", "Acme Robotics"'

PLAN = f"""\
+ companies["Zeta Ltd"]
    # from good/c.yaml:2
    name: "Zeta Ltd"

Coverage (live objects the manifests manage; the others are unmanaged, not changes):
  companies  1 of 3 (33.3%); unmanaged: {UNMANAGED}

Plan: 1 to create, 0 to update, 0 to delete, 0 to enable, 0 to disable.

"""

TWO = (
    f"=== Environment prod {'=' * 56}\n{PLAN}"
    f"=== Environment stage {'=' * 55}\n{PLAN}"
    "environment  create  update  delete  enable  disable  errors  brake  duration\n"
    "-----------  ------  ------  ------  ------  -------  ------  -----  --------\n"
    "prod              1       0       0       0        0       0     ok      N.Ns\n"
    "stage             1       0       0       0        0       0     ok      N.Ns\n"
    "2 environment(s), 1 with changes (prod, stage), 0 with errors.\n"
)


def test_each_plan_whole_in_order_then_the_summary(project: Path) -> None:
    result = run("plan", "--env", "prod", "--env", "stage")
    assert result.exit_code == 0, result.output
    assert durations(result.stdout) == TWO.replace("1 with changes", "2 with changes")
    assert result.stderr == "Planning 2 environment(s)...\n"


@pytest.mark.parametrize(
    ("args", "code"),
    [
        (("--detailed-exitcode",), 2),
        (("--fail-on-unmanaged",), 1),
        (("--fail-on-unmanaged", "--detailed-exitcode"), 1),  # unmanaged outweigh changes
        ((), 0),
    ],
)
def test_the_exit_code_over_the_environments(
    project: Path, args: tuple[str, ...], code: int
) -> None:
    result = run("plan", "--env", "prod", "--env", "stage", *args)
    assert result.exit_code == code, result.output


def test_an_unreachable_environment_is_an_error_in_its_place(project: Path) -> None:
    result = run("plan", "--env", "*", "--report-file", "run.json")
    assert result.exit_code == 1
    section = result.stdout[result.stdout.index("=== Environment down ") :]
    assert section.startswith(f"=== Environment down {'=' * 56}\nError: cannot connect to the ")
    assert "\n\nenvironment  create" in section
    assert result.stdout.endswith(
        "3 environment(s), 2 with changes (prod, stage), 1 with errors (down).\n"
    )
    assert result.stderr == "Planning 3 environment(s)...\nWrote the run summary to run.json.\n"
    rows = json.loads((project / "run.json").read_text(encoding="utf-8"))["environments"]
    assert [(r["environment"], r["status"]) for r in rows] == [
        ("prod", "changes"),
        ("stage", "changes"),
        ("down", "error"),
    ]


def test_the_json_document_holds_every_plan_and_error(project: Path) -> None:
    result = run("plan", "--env", "*", "--format", "json")
    assert result.exit_code == 1
    assert result.stdout.endswith("}\n") and not result.stdout.endswith("\n\n")
    assert "=== Environment" not in result.stdout  # one JSON document, nothing else
    document = json.loads(result.stdout)
    environments = document["environments"]
    assert [e["environment"] for e in environments] == ["prod", "stage", "down"]
    assert [e["plan"]["summary"]["create"] for e in environments[:2]] == [1, 1]
    assert [e["error"] for e in environments[:2]] == [None, None]
    assert environments[2]["plan"] is None
    assert environments[2]["error"].startswith("cannot connect to the helpdesk at 127.0.0.1:")
    assert [e["summary"]["status"] for e in environments] == ["changes", "changes", "error"]


def test_each_markdown_part_has_its_title_and_the_error_its_part(project: Path) -> None:
    result = run("plan", "--env", "*", "--format", "markdown")
    assert result.exit_code == 1
    out = result.stdout
    titles = [line for line in out.splitlines() if line.startswith("## ")]
    assert titles == [
        "## reconciler plan: environment prod",
        "## reconciler plan: environment stage",
        "## reconciler plan: environment down",
    ]
    down = out[out.index("## reconciler plan: environment down") :]
    assert down.startswith(
        "## reconciler plan: environment down\n\n**Error:** this environment could not be "
        "planned.\n\n```text\ncannot connect to the helpdesk at 127.0.0.1:"
    )
    assert "\n### Summary\n" in down


def test_a_fleet_apply_with_an_error_applies_nothing(project: Path) -> None:
    result = run("apply", "--env", "*", "--yes")
    assert result.exit_code == 1
    assert result.stderr == (
        "Planning 3 environment(s)...\nError: nothing applied: an environment has errors.\n"
    )
    again = run("plan", "--env", "prod", "--detailed-exitcode")
    assert again.exit_code == 2, again.output  # still to create


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("plan", "--sandbox"), "--sandbox and --env contradict each other: an environment "
         "names its URLs"),
        (("plan", "--comment-dir", "good/c.yaml/parts"), "--comment-dir good/c.yaml/parts: "
         "good/c.yaml is a file, not a directory"),
        (("export", "--sandbox"), "--sandbox and --env contradict each other: an environment "
         "names its URLs"),
    ],
)  # fmt: skip
def test_options_that_cannot_go_with_several_environments_are_refused_before_anything_is_read(
    project: Path, args: tuple[str, ...], message: str
) -> None:
    result = run(*args, "--env", "*")
    assert result.exit_code == 1
    assert result.output == f"Error: {message}\n"


def test_a_fleet_validate_names_each_environments_warnings(project: Path) -> None:
    (project / "good" / "w.yaml").write_text(
        'departments:\n  - name: Ops\n  - name: "\\uff2fps"\n', encoding="utf-8"
    )
    # One helpdesk per environment: validate refuses two bound to one (nothing is sent).
    project_file = project / "reconciler.yaml"
    lines = project_file.read_text(encoding="utf-8").splitlines(keepends=True)
    stage = lines.index("  stage:\n")
    lines[stage + 2] = "    helpdesk_url: https://stage.example.com/helpdesk\n"
    project_file.write_text("".join(lines), encoding="utf-8")
    result = run("validate", "--env", "prod", "--env", "stage")
    assert result.exit_code == 0, result.output
    warning = (
        "Warning: good/w.yaml:3:5: departments '\uff2fps' and 'Ops' (at good/w.yaml:2:5) are "
        "one name only after Unicode normalisation (NFKC, TR39 confusables) and case "
        "folding, but two to the helpdesk: write them alike"
    )
    assert result.output == (
        f"prod: {warning}\nprod: valid: 4 objects in 2 file(s).\n"
        f"stage: {warning}\nstage: valid: 4 objects in 2 file(s).\n"
    )


@pytest.mark.parametrize(
    ("declared", "given", "rate"),
    [
        ("    rate_limit: 30\n", (), 30),  # the environment's own
        ("    rate_limit: 30\n", ("--rate-limit", "45"), 45),  # the command line's wins
        ("", (), 90),  # neither: the default
    ],
)
def test_one_environments_rate_limit_is_the_one_apply_counts_with(
    project: Path,
    sandbox: SandboxProcess,
    monkeypatch: pytest.MonkeyPatch,
    declared: str,
    given: tuple[str, ...],
    rate: int,
) -> None:
    import click.testing

    (project / "reconciler.yaml").write_text(
        f"environments:\n  slow:\n    paths: [good]\n    helpdesk_url: {sandbox.helpdesk_url}\n"
        + declared,
        encoding="utf-8",
    )
    monkeypatch.setattr(click.testing._NamedTextIOWrapper, "isatty", lambda self: True)
    result = CliRunner().invoke(
        main, ["apply", "--env", "slow", *given], env={"NO_COLOR": "1"}, input="no\n"
    )
    assert result.exit_code == 1
    assert f"; at the helpdesk's {rate} calls a minute this takes under a minute.\n" in (
        result.stderr
    )
    assert result.stderr.endswith("Apply cancelled.\n")


def test_two_environments_of_one_service_apply_once_and_the_second_has_nothing_left(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Its own sandbox: this one writes.
    with SandboxProcess(tmp_path / "own.db", "--rate-limit", "0", "--seed", "acme") as own:
        project = tmp_path / "project"
        (project / "good").mkdir(parents=True)
        (project / "good" / "c.yaml").write_text(MANIFEST, encoding="utf-8")
        (project / "reconciler.yaml").write_text(
            "environments:\n"
            f"  first:\n    paths: [good]\n    helpdesk_url: {own.helpdesk_url}\n"
            f"  second:\n    paths: [good]\n    helpdesk_url: {own.helpdesk_url}\n",
            encoding="utf-8",
        )
        monkeypatch.chdir(project)
        for name in list(os.environ):
            if name.startswith(("HELPDESK_", "WORKSPACE_")):
                monkeypatch.delenv(name)
        monkeypatch.setenv("HELPDESK_TOKEN", own.env["HELPDESK_TOKEN"])
        result = run("apply", "--env", "*", "--yes", "--report-file", "run.json")
        assert result.exit_code == 0, result.output
        err = result.stderr
        assert "=== Applied environment first: applied\nApply complete: 1 change(s)" in err
        assert "=== Applied environment second: nothing to apply\n" in err
        assert "second: nothing to apply any more.\n" in err
        assert durations(err).endswith(
            "second: nothing to apply any more.\n"
            "first: Not recorded as applied: not in a git work tree.\n"
            "second: Not recorded as applied: not in a git work tree.\n"
            "environment  wave  result            changes  duration\n"
            "-----------  ----  ----------------  -------  --------\n"
            "first           -  applied                 1      N.Ns\n"
            "second          -  nothing to apply        -      N.Ns\n"
            "Applied 2 environment(s): first, second.\n"
            "Wrote the run summary to run.json.\n"
        )
        summary = json.loads((project / "run.json").read_text(encoding="utf-8"))
        assert summary["command"] == "apply"
        again = run("plan", "--env", "first", "--detailed-exitcode")
        assert again.exit_code == 0, again.output


BRAKE = "    safety: {min_existing: 1, max_change_percent: 10}\n"


@pytest.mark.parametrize(("safety", "holds"), [(BRAKE, True), ("", False)])
def test_one_environments_safety_settings_reach_its_plan(
    project: Path, sandbox: SandboxProcess, safety: str, holds: bool
) -> None:
    (project / "good" / "c.yaml").write_text(
        "companies:\n  - name: Acme Corp\n    notes: Changed by the test\n", encoding="utf-8"
    )
    (project / "reconciler.yaml").write_text(
        f"environments:\n  prod:\n    paths: [good]\n    helpdesk_url: {sandbox.helpdesk_url}\n"
        + safety,
        encoding="utf-8",
    )
    result = run("plan", "--env", "prod", "--format", "json")
    assert result.exit_code == 0, result.output
    reasons = ["companies: 1 of 3 live objects would change or go (33%, above the 10% limit)"]
    assert json.loads(result.stdout)["brake"] == {
        "holds": holds,
        "reasons": reasons if holds else [],
    }


UNICODE_MANIFEST = "companies:\n  - name: Zürich Café AG\n"


@pytest.fixture
def unicode_project(
    clean_workdir: Path, sandbox: SandboxProcess, monkeypatch: pytest.MonkeyPatch
) -> Path:
    return fleet_project(
        clean_workdir, sandbox, monkeypatch, UNICODE_MANIFEST, up=("prod",), down=("down",)
    )


MARKDOWN = """\
## reconciler plan: environment prod

| kind | create | update | delete | enable | disable |
|:--|--:|--:|--:|--:|--:|
| companies | 1 | 0 | 0 | 0 | 0 |
| **total** | **1** | **0** | **0** | **0** | **0** |

**Plan: 1 to create, 0 to update, 0 to delete, 0 to enable, 0 to disable.**

**Coverage** (live objects the manifests manage; the others are unmanaged, not changes):

| kind | live | managed | coverage | unmanaged |
|:--|--:|--:|--:|--:|
| companies | 3 | 0 | 0% | 3 |

<details><summary>companies: 1 to create</summary>

```diff
+ companies["Zürich Café AG"]
  # from good/c.yaml:2
+     name: "Zürich Café AG"
```

</details>

### Unmanaged objects (3)

Live objects no manifest entry names: not changes, `apply` leaves them alone.

- `companies["Acme Corp"]`
- `companies["Acme Field Services"]`
- `companies["Acme Robotics"]`

## reconciler plan: environment down

**Error:** this environment could not be planned.

```text
cannot connect to the helpdesk at 127.0.0.1:PORT: connection refused (ConnectError: \
All connection attempts failed); nothing accepts connections there: \
check the URL's host and port, and that the service is running
```

### Summary

| environment | create | update | delete | enable | disable | errors | brake | duration |
|:---|---:|---:|---:|---:|---:|---:|---:|---:|
| prod | 1 | 0 | 0 | 0 | 0 | 0 | ok | N.Ns |
| down | 0 | 0 | 0 | 0 | 0 | 1 | - | N.Ns |

2 environment(s), 1 with changes (prod), 1 with errors (down).
"""


def steady(text: str) -> str:
    text = re.sub(r"\b\d+\.\ds\b", "N.Ns", text)
    text = re.sub(r"127\.0\.0\.1:\d+", "127.0.0.1:PORT", text)
    return re.sub(r"'127\.0\.0\.1', \d+", "'127.0.0.1', PORT", text)


def test_the_markdown_of_a_fleet_plan_is_each_environments_part_then_the_summary(
    unicode_project: Path,
) -> None:
    result = run("plan", "--env", "*", "--format", "markdown")
    assert result.exit_code == 1
    assert steady(result.stdout) == MARKDOWN


def test_the_json_of_a_fleet_plan_keeps_names_as_written(unicode_project: Path) -> None:
    result = run("plan", "--env", "*", "--format", "json")
    assert result.exit_code == 1
    out = result.stdout
    assert out.endswith("}\n") and not out.endswith("\n\n")
    assert out.count("Zürich Café AG") == 5 and "\\u" not in out
    document = json.loads(out)
    prod, down = document["environments"]
    assert prod["plan"]["changes"][0]["key"] == "Zürich Café AG"
    assert (prod["error"], down["plan"]) == (None, None)
    assert [e["summary"]["status"] for e in (prod, down)] == ["changes", "error"]
