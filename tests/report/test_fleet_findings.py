"""Findings of a run over several environments (report/findings.py `for_environment`,
annotations.py): each names its environment in the GitHub title and the Code Quality
description; its fingerprint includes the environment and stays as before without one;
a finding with no manifest line is placed on the environment's line of the project file."""

from __future__ import annotations

# ruff: noqa: E501  (a case is one line, whatever its length)
import hashlib

import pytest

from reconciler.report.annotations import code_quality, fingerprint, github_command
from reconciler.report.findings import ERROR, WARNING, Finding, for_environment

LOCATED = Finding(WARNING, "Manifest warning", "listed twice", "baseline/msp.yaml", 3, 5)
UNLOCATED = Finding(ERROR, "reconciler failed", "cannot connect to http://127.0.0.1:1/")

# (finding, environment, its line in the project file, the GitHub command)
CASES = [
    (LOCATED, "acme", "reconciler.yaml:6:3",
     "::warning file=baseline/msp.yaml,line=3,col=5,title=acme%3A Manifest warning::listed twice"),
    (UNLOCATED, "initech", "reconciler.yaml:26:3",
     "::error file=reconciler.yaml,line=26,col=3,title=initech%3A reconciler failed::cannot connect to http://127.0.0.1:1/"),
    (UNLOCATED, "x", "not a place",  # no line known: stays unplaced
     "::error title=x%3A reconciler failed::cannot connect to http://127.0.0.1:1/"),
]  # fmt: skip


@pytest.mark.parametrize(("finding", "name", "where", "command"), CASES)
def test_each_finding_names_its_environment(
    finding: Finding, name: str, where: str, command: str
) -> None:
    (placed,) = for_environment([finding], name, where)
    assert placed.environment == name
    assert github_command(placed) == command


def test_code_quality_names_the_environment_and_fingerprints_per_environment() -> None:
    findings = [*for_environment([LOCATED], "acme", "r.yaml:1:3"),
                *for_environment([LOCATED], "globex", "r.yaml:9:3")]  # fmt: skip
    entries = code_quality([*findings, LOCATED], "manifests")
    assert [e["description"] for e in entries] == [
        "acme: Manifest warning: listed twice",
        "globex: Manifest warning: listed twice",
        "Manifest warning: listed twice",
    ]
    assert len({e["fingerprint"] for e in entries}) == 3
    assert {e["check_name"] for e in entries} == {"reconciler/manifest-warning"}
    # Without an environment the fingerprint is what it was before environments (GitLab
    # matches findings across pipelines by it).
    before = "\0".join([WARNING, "Manifest warning", "baseline/msp.yaml", "listed twice"])
    assert entries[2]["fingerprint"] == hashlib.sha256(before.encode()).hexdigest()
    assert entries[0]["fingerprint"] == fingerprint(findings[0], {})  # stable
