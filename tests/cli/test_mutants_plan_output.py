"""`reconciler plan` as a script uses it, in-process against the embedded sandbox
(`--sandbox`, on 127.0.0.1): the JSON plan on stdout is one document ending in one
newline (what `> plan.json` keeps), and a partial plan's pull-request comment parts,
the note on top of the first included, each fit the 60,000 characters a comment holds."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner

from reconciler.cli import main

COMPANIES = 1_500
LIMIT = 60_000


def companies(count: int, longer: int = 0) -> str:
    """`count` companies, the name of the second `longer` characters longer."""
    lines = ["companies:"]
    for i in range(count):
        more = "-" * longer if i == 1 else ""
        lines += [
            f"  - name: Generated Company {i:04d}{more}",
            f"    notes: A company generated for a long plan, number {i}",
            f"    email_domains: [company-{i:04d}.example.com, company-{i:04d}.example.org]",
        ]
    return "\n".join(lines) + "\n"


def git(root: Path, *args: str) -> None:
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com"}
    env |= {"GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.com"}
    subprocess.run(["git", "-C", str(root), *args], check=True, capture_output=True, env=env)


@pytest.fixture
def workdir(clean_workdir: Path) -> Path:
    return clean_workdir


def test_the_json_plan_on_stdout_ends_in_one_newline(workdir: Path) -> None:
    (workdir / "c.yaml").write_text(companies(2), encoding="utf-8")
    result = CliRunner().invoke(main, ["plan", "c.yaml", "--sandbox", "--format", "json"])
    assert result.exit_code == 0, result.output
    assert result.stdout.endswith("}\n") and not result.stdout.endswith("\n\n")
    assert json.loads(result.stdout)["summary"]["create"] == 2


def test_a_partial_plans_comment_parts_fit_a_comment_with_the_note_on_top(workdir: Path) -> None:
    (workdir / "manifests").mkdir()
    manifest = workdir / "manifests" / "companies.yaml"
    manifest.write_text(companies(1), encoding="utf-8")
    git(workdir, "init", "-q")
    git(workdir, "add", "-A")
    git(workdir, "commit", "-qm", "one company")
    # The first change made 120 characters longer (its name is shown twice): the first
    # part then ends where only counting the note (97 characters) in its budget keeps it
    # under the limit (each change takes about 273).
    manifest.write_text(companies(COMPANIES, longer=60), encoding="utf-8")
    args = ["plan", "manifests", "--sandbox", "--changed-since", "HEAD", "--comment-dir", "parts"]
    result = CliRunner().invoke(main, [*args, "--format", "json"])
    assert result.exit_code == 0, result.output
    files = sorted((workdir / "parts").iterdir(), key=lambda p: int(p.stem))
    parts = [p.read_text(encoding="utf-8") for p in files]
    assert len(parts) > 2
    assert parts[0].startswith(
        f"> Partial plan: {COMPANIES - 1} of {COMPANIES} entries, the {COMPANIES - 1} added or "
        "changed since HEAD and those they name.\n\n"
        f"## reconciler plan (part 1 of {len(parts)})\n"
    )
    assert [len(part) <= LIMIT for part in parts] == [True] * len(parts)
    # Filled up to the limit: the note is counted in the first part's budget.
    assert len(parts[0]) > LIMIT - 1_000
    together = "".join(parts)
    assert all(f"Generated Company {i:04d}" in together for i in range(1, COMPANIES))
