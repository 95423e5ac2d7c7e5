"""Drift told from pending (docs/drift.md) as a user runs it: the CLI in a child process,
in a git repository made in the test's directory, against `reconciler sandbox serve`.
`apply` records the applied mark; a hand change through the API is `drift`, a committed
manifest change not applied yet is `pending`; `--fail-on` picks what exits 2."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from tests.e2e import test_apply_cli as applying
from tests.e2e.test_apply_cli import Sandbox, Start, cli, converge, edit, entry

pytestmark = pytest.mark.e2e
REF = "refs/reconciler/applied/default"
start, workdir = applying.start, applying.workdir  # the apply tests' fixtures


def git(cwd: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", "-c", "user.name=Test", "-c", "user.email=test@example.com", *args],
        cwd=cwd, capture_output=True, text=True, check=True,
    )  # fmt: skip
    return done.stdout.strip()


@pytest.fixture
def repo(workdir: Path) -> Path:
    """The acme manifests committed in a fresh repository; the sandbox's files ignored."""
    git(workdir, "init", "-q", "-b", "main")
    (workdir / ".gitignore").write_text(".reconciler/\n*.db\n")
    git(workdir, "add", "-A")
    git(workdir, "commit", "-q", "-m", "acme")
    return workdir


def marked(repo: Path) -> str | None:
    done = subprocess.run(["git", "rev-parse", "-q", "--verify", REF], cwd=repo,
                          capture_output=True, text=True, check=False)  # fmt: skip
    return done.stdout.strip() or None


def commit_globex_notes(repo: Path, notes: str) -> None:
    edit(
        repo / "acme" / "companies.yaml",
        lambda d: entry(d["companies"], "name", "Globex Logistics").update(notes=notes),
    )
    git(repo, "commit", "-q", "-am", "Globex notes")


def change_acme_corp_by_hand(sandbox: Sandbox) -> None:
    acme = sandbox.company("Acme Corp")
    sandbox.post("UpdateCompany", id=acme["CompanyID"], name=acme["Name"], notes="By hand")


def test_a_hand_change_is_drift_and_a_committed_change_is_pending(start: Start, repo: Path) -> None:
    sandbox = start("acme")
    converge(repo, sandbox)
    assert marked(repo) == git(repo, "rev-parse", "HEAD")
    change_acme_corp_by_hand(sandbox)
    commit_globex_notes(repo, "Onboarded to group IT.")

    text = cli(repo, sandbox.process, "plan", "acme", "--detailed-exitcode")
    assert text.returncode == 2, text.stderr
    assert '~ companies["Acme Corp"] (drift)' in text.stdout
    assert '~ companies["Globex Logistics"] (pending)' in text.stdout
    assert "Causes: 1 drift, 1 pending." in text.stdout
    assert "Labels omitted" not in text.stderr

    as_json = json.loads(cli(repo, sandbox.process, "plan", "acme", "--format", "json").stdout)
    causes = {c["address"]: c["cause"] for c in as_json["changes"]}
    assert causes == {'companies["Acme Corp"]': "drift", 'companies["Globex Logistics"]': "pending"}

    drift_only = cli(repo, sandbox.process, "plan", "acme", "--detailed-exitcode",
                     "--fail-on", "drift")  # fmt: skip
    assert drift_only.returncode == 2, drift_only.stderr


def test_fail_on_drift_with_only_pending_changes_exits_0(start: Start, repo: Path) -> None:
    sandbox = start("acme")
    converge(repo, sandbox)
    commit_globex_notes(repo, "Onboarded to group IT.")
    plan = ["plan", "acme", "--detailed-exitcode"]
    assert cli(repo, sandbox.process, *plan, "--fail-on", "drift").returncode == 0
    assert cli(repo, sandbox.process, *plan, "--fail-on", "pending").returncode == 2
    assert cli(repo, sandbox.process, *plan).returncode == 2  # any, the default


def test_a_second_apply_moves_the_mark_and_an_uncommitted_one_leaves_it(
    start: Start, repo: Path
) -> None:
    sandbox = start("acme")
    converge(repo, sandbox)
    first = marked(repo)
    commit_globex_notes(repo, "Onboarded to group IT.")
    converge(repo, sandbox)
    second = git(repo, "rev-parse", "HEAD")
    assert marked(repo) == second != first

    edit(
        repo / "acme" / "companies.yaml",
        lambda d: entry(d["companies"], "name", "Globex Logistics").update(notes="Uncommitted."),
    )
    applied = cli(repo, sandbox.process, "apply", "acme", "--yes")
    assert applied.returncode == 0, applied.stderr
    assert (
        "Not recorded as applied: the manifests have uncommitted changes "
        "(acme/companies.yaml)." in applied.stderr
    )
    assert marked(repo) == second


def test_a_saved_plan_records_the_commit_it_was_made_from(start: Start, repo: Path) -> None:
    sandbox = start("acme")
    converge(repo, sandbox)
    commit_globex_notes(repo, "Onboarded to group IT.")
    saved = cli(repo, sandbox.process, "plan", "acme", "--out", "plan.json")
    assert saved.returncode == 0, saved.stderr
    data = json.loads((repo / "plan.json").read_text())
    assert [c["cause"] for c in data["changes"]] == ["pending"]  # kept, not compared on apply
    head = git(repo, "rev-parse", "HEAD")
    assert data["made_from"]["commit"] == head
    git(repo, "commit", "-q", "--allow-empty", "-m", "later")
    applied = cli(repo, sandbox.process, "apply", "acme", "--plan", "plan.json", "--yes")
    assert applied.returncode == 0, applied.stderr
    assert marked(repo) == head


def test_the_labelled_plan_reads_no_more_than_the_unlabelled_one(start: Start, repo: Path) -> None:
    sandbox = start("acme")
    converge(repo, sandbox)
    commit_globex_notes(repo, "Onboarded to group IT.")
    sandbox.forget_requests()
    labelled = cli(repo, sandbox.process, "plan", "acme")
    assert "(pending)" in labelled.stdout
    with_mark = sandbox.requests()
    git(repo, "update-ref", "-d", REF)
    sandbox.forget_requests()
    unlabelled = cli(repo, sandbox.process, "plan", "acme")
    assert "(pending)" not in unlabelled.stdout
    assert len(with_mark) == len(sandbox.requests())


def test_a_mark_that_cannot_be_used_is_one_line_and_no_label(start: Start, repo: Path) -> None:
    sandbox = start("acme")
    converge(repo, sandbox)
    commit_globex_notes(repo, "Onboarded to group IT.")
    # A commit this clone does not have (a shallow clone's case).
    # (git update-ref refuses a missing object: the ref is written as a shallow fetch would.)
    (repo / ".git" / REF).parent.mkdir(parents=True, exist_ok=True)
    (repo / ".git" / REF).write_text("1" * 40 + "\n")
    plan = cli(repo, sandbox.process, "plan", "acme", "--detailed-exitcode", "--fail-on", "drift")
    assert plan.returncode == 2, plan.stderr  # unlabelled changes count for every --fail-on
    assert "(pending)" not in plan.stdout and "Traceback" not in plan.stderr
    omitted = [line for line in plan.stderr.splitlines() if line.startswith("Labels omitted")]
    assert len(omitted) == 1 and "which this clone does not have" in omitted[0]

    # A mark whose manifests no longer load.
    (repo / "acme" / "broken.yaml").write_text("companies: [\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "broken")
    git(repo, "update-ref", REF, "HEAD")
    (repo / "acme" / "broken.yaml").unlink()
    git(repo, "commit", "-q", "-am", "fixed")
    plan = cli(repo, sandbox.process, "plan", "acme")
    assert plan.returncode == 0, plan.stderr
    assert "(pending)" not in plan.stdout and "Traceback" not in plan.stderr
    assert "do not load" in plan.stderr


def test_apply_outside_git_says_so_in_one_line(start: Start, workdir: Path) -> None:
    sandbox = start("acme")
    applied = cli(workdir, sandbox.process, "apply", "acme", "--yes")
    assert applied.returncode == 0, applied.stderr
    assert "Not recorded as applied: not in a git work tree." in applied.stderr
    assert "Traceback" not in applied.stderr


def test_fail_on_without_detailed_exitcode_is_refused(start: Start, repo: Path) -> None:
    sandbox = start("acme")
    refused = cli(repo, sandbox.process, "plan", "acme", "--fail-on", "drift")
    assert refused.returncode == 1
    assert "--fail-on picks which changes make --detailed-exitcode exit 2" in refused.stderr
