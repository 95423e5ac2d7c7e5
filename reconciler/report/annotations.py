"""Findings where reviewers look: GitHub workflow commands (annotations on the diff's
lines) and GitLab's Code Quality report (findings in the merge request's widget).

GitHub: `::error file=F,line=L,col=C,title=T::message`, the data and the properties
escaped as the runner unescapes them (`%`, CR and LF in both; `:` and `,` in properties
too). The runner shows at most 10 annotations of each of error, warning and notice per
step: past that, the first 9 are shown and the 10th says how many more are in the log.

GitLab: a JSON array of `{description, check_name, fingerprint, severity, location:
{path, lines: {begin}}}`. The fingerprint is the same for the same finding on the next
run (the line is left out, so that moving an entry does not make a new finding).

In a run over several environments (`--env '*'`) each finding names its environment (in
the title; in the description), and its fingerprint includes it: the same problem on a
baseline line shared by two environments is two findings, one per environment.

Every text passes through `reconciler.masking.mask` first. The standard streams neutralise
every line the runner would execute (masking.py); the commands made here are the ones
written on purpose, so `github_commands` lets each of them through once
(`masking.allow_commands`).
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Iterable, Mapping, Sequence

from reconciler.masking import allow_commands, mask
from reconciler.report.findings import ERROR, NOTICE, SEVERITIES, WARNING, Finding

GITHUB = "github"
GITLAB = "gitlab"
NONE = "none"
# Annotations of one severity the runner shows per step (GitHub's documented limit).
GITHUB_STEP_LIMIT = 10
_GITHUB_COMMAND = {ERROR: "error", WARNING: "warning", NOTICE: "notice"}
_CODE_QUALITY_SEVERITY = {ERROR: "major", WARNING: "minor", NOTICE: "info"}


def default_platform(env: Mapping[str, str]) -> str:
    """`github` under GitHub Actions, `gitlab` under GitLab CI, else `none`."""
    if env.get("GITHUB_ACTIONS") == "true":
        return GITHUB
    if env.get("GITLAB_CI"):
        return GITLAB
    return NONE


def platform_from(value: str | None, env: Mapping[str, str] | None = None) -> str:
    return value or default_platform(os.environ if env is None else env)


def escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def github_command(finding: Finding) -> str:
    # A line and a column only with a file: they place nothing alone.
    place = [("file", finding.file), ("line", finding.line), ("col", finding.column)]
    shown = [(name, str(value)) for name, value in place if value is not None]
    properties = [*(shown if finding.file is not None else []), ("title", _titled(finding))]
    joined = ",".join(f"{name}={escape_property(mask(value))}" for name, value in properties)
    return f"::{_GITHUB_COMMAND[finding.severity]} {joined}::{escape_data(mask(finding.message))}"


def _titled(finding: Finding) -> str:
    """The title, after the environment's name in a run over several (`acme: Plan error`)."""
    return f"{finding.environment}: {finding.title}" if finding.environment else finding.title


def github_commands(findings: Sequence[Finding], limit: int = GITHUB_STEP_LIMIT) -> list[str]:
    """One command per finding, in order, at most `limit` of each severity: past that the
    last one shown says how many more there are (they are all in the job log)."""
    lines: list[str] = []
    for severity in SEVERITIES:
        of_kind = [f for f in findings if f.severity == severity]
        shown = of_kind if len(of_kind) <= limit else of_kind[: limit - 1]
        lines.extend(github_command(f) for f in shown)
        rest = len(of_kind) - len(shown)
        if rest:
            noun = {ERROR: "error", WARNING: "warning", NOTICE: "note"}[severity]
            summary = Finding(
                severity,
                f"{rest} more {noun}s",
                f"{rest} more {noun}s than GitHub shows for one step: see the job log.",
            )
            lines.append(github_command(summary))
    allow_commands(lines)
    return lines


def fingerprint(finding: Finding, seen: dict[str, int]) -> str:
    """Stable across runs; a repeated identical finding gets its own (`#2`, `#3`...)."""
    base = "\0".join([finding.severity, finding.title, finding.file or "", finding.message])
    if finding.environment:  # one baseline line, two environments: two findings
        base += f"\0{finding.environment}"
    seen[base] = seen.get(base, 0) + 1
    if seen[base] > 1:
        base += f"\0#{seen[base]}"
    return hashlib.sha256(mask(base).encode("utf-8")).hexdigest()


def code_quality(findings: Iterable[Finding], fallback_path: str) -> list[dict[str, object]]:
    """GitLab's Code Quality entries. A finding without a place (a brake without a removal
    in the manifests, an API error) is put at line 1 of `fallback_path`, so that the merge
    request still shows it."""
    seen: dict[str, int] = {}
    out: list[dict[str, object]] = []
    for finding in findings:
        out.append(
            {
                "description": mask(f"{_titled(finding)}: {finding.message}"),
                "check_name": mask("reconciler/" + finding.title.lower().replace(" ", "-")),
                "fingerprint": fingerprint(finding, seen),
                "severity": _CODE_QUALITY_SEVERITY[finding.severity],
                "location": {
                    "path": mask(finding.file or fallback_path),
                    "lines": {"begin": finding.line or 1},
                },
            }
        )
    return out


def code_quality_json(findings: Iterable[Finding], fallback_path: str) -> str:
    return json.dumps(code_quality(findings, fallback_path), indent=2, ensure_ascii=False) + "\n"
