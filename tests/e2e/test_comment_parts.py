"""`plan --comment-dir`: a plan too long for one pull-request comment is written in parts
of at most 60,000 characters that together name every change (against the sandbox)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.e2e.test_plan_cli import run

pytestmark = pytest.mark.e2e
COMPANIES = 1_500


def manifest(path: Path) -> None:
    lines = ["companies:"]
    for i in range(COMPANIES):
        lines += [
            f"  - name: Generated Company {i:04d}",
            f"    notes: A company generated for a long plan, number {i}",
            f"    email_domains: [company-{i:04d}.example.com, company-{i:04d}.example.org]",
        ]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def test_a_plan_of_1500_companies_splits_into_parts_that_name_every_change(
    tmp_path: Path,
) -> None:
    manifest(tmp_path / "companies.yaml")
    (tmp_path / "parts").mkdir()
    (tmp_path / "parts" / "99.md").write_text("left over from a longer plan")
    done = run(
        tmp_path,
        "plan",
        "companies.yaml",
        "--sandbox",
        "--format",
        "json",
        "--comment-dir",
        "parts",
    )
    assert done.returncode == 0, done.stderr
    addresses = [c["address"] for c in json.loads(done.stdout)["changes"]]
    assert len(addresses) == COMPANIES
    files = sorted((tmp_path / "parts").iterdir(), key=lambda p: int(p.stem))
    assert [p.name for p in files] == [f"{n}.md" for n in range(1, len(files) + 1)]
    assert len(files) > 2
    parts = [p.read_text(encoding="utf-8") for p in files]
    assert all(len(part) <= 60_000 for part in parts)
    assert f"| companies | {COMPANIES:,} |" in parts[0]
    assert parts[0].startswith(f"## reconciler plan (part 1 of {len(parts)})")
    together = "".join(parts)
    assert all(f"+ {address}\n" in together for address in addresses)
    assert f"Wrote the plan in {len(parts)} comment part(s)" in done.stderr
