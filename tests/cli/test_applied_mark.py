"""The applied mark (docs/drift.md) in-process, against the embedded sandbox and a sandbox
process: a repository without commits and a detached HEAD, and a fleet's marks, one per
environment, that `plan --env '*'` labels each environment's changes against."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from reconciler.cli import main
from reconciler.sandbox.process import SandboxProcess

MANIFEST = "companies:\n  - name: Zeta Ltd\n"


def run(*args: str) -> Result:
    return CliRunner().invoke(main, list(args), env={"NO_COLOR": "1"})


def git(cwd: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", "-c", "user.name=Test", "-c", "user.email=test@example.com", *args],
        cwd=cwd, capture_output=True, text=True, check=True,
    )  # fmt: skip
    return done.stdout.strip()


def refs(cwd: Path) -> dict[str, str]:
    listed = git(cwd, "for-each-ref", "--format=%(refname) %(objectname)", "refs/reconciler/")
    return dict(line.split(" ", 1) for line in listed.splitlines())


@pytest.fixture
def repo(clean_workdir: Path) -> Path:
    (clean_workdir / "c.yaml").write_text(MANIFEST, encoding="utf-8")
    (clean_workdir / ".gitignore").write_text(".reconciler/\n", encoding="utf-8")
    git(clean_workdir, "init", "-q", "-b", "main")
    return clean_workdir


def test_a_repository_without_commits_records_nothing_and_says_why(repo: Path) -> None:
    applied = run("apply", "c.yaml", "--sandbox", "--yes")
    assert applied.exit_code == 0, applied.output
    assert applied.stderr.endswith(
        "Not recorded as applied: the git repository has no commits yet.\n"
    )
    planned = run("plan", "c.yaml", "--sandbox")
    assert planned.exit_code == 0, planned.output
    assert "Labels omitted" not in planned.stderr and "Causes:" not in planned.stdout


def test_a_detached_head_is_recorded(repo: Path) -> None:
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "zeta")
    head = git(repo, "rev-parse", "HEAD")
    git(repo, "checkout", "-q", "--detach")
    applied = run("apply", "c.yaml", "--sandbox", "--yes")
    assert applied.exit_code == 0, applied.output
    assert f"Recorded {head[:12]} as refs/reconciler/applied/default.\n" in applied.stderr
    assert refs(repo) == {"refs/reconciler/applied/default": head}


def test_a_partial_apply_records_nothing(repo: Path) -> None:
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "zeta")
    applied = run("apply", "c.yaml", "--sandbox", "--yes", "--target", "companies")
    assert applied.exit_code == 0, applied.output
    assert "Not recorded as applied: a partial apply (--target) applies part of the commit." in (
        applied.stderr
    )
    assert refs(repo) == {}


def test_each_environment_has_its_mark_and_its_labels(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
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
        (project / ".gitignore").write_text(".reconciler/\n", encoding="utf-8")
        git(project, "init", "-q", "-b", "main")
        git(project, "add", "-A")
        git(project, "commit", "-q", "-m", "zeta")
        head = git(project, "rev-parse", "HEAD")

        applied = run("apply", "--env", "*", "--yes")
        assert applied.exit_code == 0, applied.output
        assert f"first: Recorded {head[:12]} as refs/reconciler/applied/first.\n" in applied.stderr
        assert refs(project) == {
            "refs/reconciler/applied/first": head,
            "refs/reconciler/applied/second": head,
        }

        (project / "good" / "c.yaml").write_text(MANIFEST + "    notes: merged\n")
        git(project, "commit", "-q", "-am", "notes")
        planned = run("plan", "--env", "*", "--detailed-exitcode", "--fail-on", "drift")
        assert planned.exit_code == 0, planned.output  # pending only
        assert planned.stdout.count('~ companies["Zeta Ltd"] (pending)') == 2
        assert run("plan", "--env", "*", "--detailed-exitcode").exit_code == 2


def test_without_git_the_plan_is_as_without_a_mark(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATH", str(repo / "no-such-directory"))
    planned = run("plan", "c.yaml", "--sandbox", "--detailed-exitcode", "--fail-on", "drift")
    assert planned.exit_code == 2, planned.output  # an unlabelled change counts for drift
    assert planned.stderr == "" and "Causes:" not in planned.stdout
    applied = run("apply", "c.yaml", "--sandbox", "--yes")
    assert applied.exit_code == 0, applied.output
    assert applied.stderr.endswith(
        "Not recorded as applied: git cannot be run: No such file or directory.\n"
    )
