"""What a user of several environments sees from `plan` and `export` over them, in-process
(click's CliRunner) against one `sandbox serve` process on a free loopback port that the
environments share (helpdesk only: the workspace kinds are skipped, with a warning): each
environment's comment parts with links into the source, each environment's export in its
own directory, only the automation rules asked for, an environment whose directory cannot
take its export reported by name, and one export with its warnings."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from reconciler.cli import main
from reconciler.sandbox.process import SandboxProcess
from tests.cli.conftest import fleet_project

MANIFEST = "companies:\n  - name: Zeta Ltd\n  - name: Acme Corp\n"
SKIPPED = "workspace.employees skipped: the workspace service is not configured"


@pytest.fixture
def project(clean_workdir: Path, sandbox: SandboxProcess, monkeypatch: pytest.MonkeyPatch) -> Path:
    return fleet_project(
        clean_workdir, sandbox, monkeypatch, MANIFEST, up=("acme", "globex"), down=()
    )


def run(*args: str) -> Result:
    return CliRunner().invoke(main, list(args), env={"NO_COLOR": "1"})


def test_each_environments_comment_parts_link_into_the_source(project: Path) -> None:
    source = "https://git.example.com/r/blob/main"
    result = run("plan", "--env", "*", "--comment-dir", "parts", "--source-url", source)
    assert result.exit_code == 0, result.output
    assert result.stderr == (
        "Planning 2 environment(s)...\nWrote the plans of 2 environment(s) in 2 comment "
        "part(s) to parts (one directory each, and summary.md).\n"
    )
    parts = project / "parts"
    assert sorted(str(p.relative_to(parts)) for p in parts.rglob("*.md")) == [
        "acme/1.md",
        "globex/1.md",
        "summary.md",
    ]
    for name in ("acme", "globex"):
        text = (parts / name / "1.md").read_text(encoding="utf-8")
        assert text.startswith(f"## reconciler plan: environment {name}\n")
        assert f'[`companies["Zeta Ltd"]`]({source}/good/c.yaml#L2)' in text
    summary = (parts / "summary.md").read_text(encoding="utf-8")
    assert summary.startswith("## reconciler plan: 2 environment(s)\n\n### Summary\n")
    assert summary.endswith("2 environment(s), 2 with changes (acme, globex), 0 with errors.\n")


def written(directory: Path) -> list[str]:
    return sorted(p.name for p in directory.iterdir())


def test_a_fleet_export_writes_only_the_rules_asked_for_and_says_what_it_skipped(
    project: Path,
) -> None:
    kinds = "companies,automation_rules,workspace.employees"
    result = run("export", "--env", "*", "--out", "out", "--kinds", kinds, "--rule-ids", "101")
    assert result.exit_code == 0, result.output
    files = "settings.yaml, companies.yaml, automation_rules.yaml, manifest.schema.json"
    assert result.stderr == (
        "Exporting 2 environment(s)...\n"
        f"Warning: acme: {SKIPPED}\n"
        f"acme: exported 4 object(s) to out/acme: {files}.\n"
        f"Warning: globex: {SKIPPED}\n"
        f"globex: exported 4 object(s) to out/globex: {files}.\n"
        "Exported 2 environment(s) to out.\n"
    )
    for name in ("acme", "globex"):
        rules = (project / "out" / name / "automation_rules.yaml").read_text(encoding="utf-8")
        assert "  - id: 101\n    name: Escalate critical tickets to IT on-call\n" in rules
        assert "id: 102" not in rules  # only the rule asked for


def test_an_environment_whose_directory_cannot_take_its_export_is_named(project: Path) -> None:
    # A directory where the export writes a file (left over from something else): the
    # other environment is exported, this one is reported, and the run exits 1.
    (project / "out" / "globex" / "companies.yaml").mkdir(parents=True)
    result = run("export", "--env", "*", "--out", "out", "--kinds", "companies")
    assert result.exit_code == 1
    assert result.stderr == (
        "Exporting 2 environment(s)...\n"
        "acme: exported 3 object(s) to out/acme: settings.yaml, companies.yaml, "
        "manifest.schema.json.\n"
        "Error: globex: cannot write out/globex/companies.yaml: it is a directory\n"
        "Error: 1 of 2 environment(s) not exported: globex.\n"
    )
    assert written(project / "out" / "acme") == [
        "companies.yaml",
        "manifest.schema.json",
        "settings.yaml",
    ]


def test_one_export_to_stdout_gives_its_warnings_on_stderr(project: Path) -> None:
    result = run("export", "--env", "acme", "--kinds", "companies,workspace.employees")
    assert result.exit_code == 0, result.output
    assert result.stderr.endswith(f"Warning: {SKIPPED}\nExported 3 object(s).\n")
    assert "\ncompanies:\n  - name: Acme Corp\n" in result.stdout
    assert "employees:" not in result.stdout


def test_a_fleet_export_keeps_to_the_objects_chosen_and_force_overwrites(project: Path) -> None:
    (project / "out" / "acme").mkdir(parents=True)
    (project / "out" / "acme" / "companies.yaml").write_text("companies: []\n", encoding="utf-8")
    args = ["--kinds", "companies,departments", "--target", "companies", "--exclude",
            "companies/Acme Robotics"]  # fmt: skip
    refused = run("export", "--env", "*", "--out", "out", *args)
    assert refused.exit_code == 1
    assert refused.stderr.startswith("Error: --out out/acme already holds manifests")
    schema = "../../schemas/manifest.schema.json"  # the repository's: none written
    result = run("export", "--env", "*", "--out", "out", "--force", "--schema", schema, *args)
    assert result.exit_code == 0, result.output
    for name in ("acme", "globex"):
        text = (project / "out" / name / "companies.yaml").read_text(encoding="utf-8")
        assert text.startswith(f"# yaml-language-server: $schema={schema}\n")
        names = [line for line in text.splitlines() if line.startswith("  - name: ")]
        assert names == ["  - name: Acme Corp", "  - name: Acme Field Services"]
        assert written(project / "out" / name) == ["companies.yaml", "settings.yaml"]


def test_an_unreachable_environment_is_reported_on_stderr_and_the_others_exported(
    project: Path, sandbox: SandboxProcess
) -> None:
    (project / "reconciler.yaml").write_text(
        "environments:\n"
        f"  acme:\n    paths: [good]\n    helpdesk_url: {sandbox.helpdesk_url}\n"
        "  down:\n    paths: [good]\n    helpdesk_url: http://127.0.0.1:9/helpdesk\n",
        encoding="utf-8",
    )
    result = run("export", "--env", "*", "--out", "out", "--kinds", "companies")
    assert result.exit_code == 1
    assert result.stdout == ""
    assert result.stderr.startswith(
        "Exporting 2 environment(s)...\nacme: exported 3 object(s) to out/acme: "
    )
    assert "\nError: down: cannot connect to the helpdesk at 127.0.0.1:9: " in result.stderr
    assert result.stderr.endswith("Error: 1 of 2 environment(s) not exported: down.\n")
    assert not (project / "out" / "down").exists()


def test_a_fleet_export_with_include_empty_writes_the_empty_fields_of_each_environment(
    project: Path,
) -> None:
    args = ["--kinds", "users"]
    result = run("export", "--env", "*", "--out", "out", "--include-empty", *args)
    assert result.exit_code == 0, result.output
    plain = run("export", "--env", "*", "--out", "plain", *args)
    assert plain.exit_code == 0, plain.output
    for name in ("acme", "globex"):
        full = (project / "out" / name / "users.yaml").read_text(encoding="utf-8")
        lean = (project / "plain" / name / "users.yaml").read_text(encoding="utf-8")
        assert "    phone: ''" in full and "phone:" not in lean
