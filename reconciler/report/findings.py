"""Findings: every diagnostic a run has (validation problems and warnings, the plan's
errors, warnings and notes, the safety brake), each with where it is when known, for the
reports that put them on the manifest lines (annotations.py)."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from typing import Any

ERROR = "error"
WARNING = "warning"
NOTICE = "notice"
SEVERITIES = (ERROR, WARNING, NOTICE)

# `file:line:column: message` (manifest problems) and `file:line[:column]` (a location).
_PROBLEM = re.compile(r"^(?P<file>.+?):(?P<line>\d+):(?P<column>\d+): (?P<message>.*)$", re.S)
_LOCATION = re.compile(r"^(?P<file>.+?):(?P<line>\d+)(?::(?P<column>\d+))?$")


@dataclass(frozen=True)
class Finding:
    """One diagnostic. `title` is a short heading (`Invalid manifest`, `Plan error`);
    `file`/`line`/`column` are None when the diagnostic has no place in a manifest."""

    severity: str
    title: str
    message: str
    file: str | None = None
    line: int | None = None
    column: int | None = None
    # The environment of reconciler.yaml it was found in (a run over several: `--env`).
    environment: str | None = None

    @property
    def located(self) -> bool:
        return self.file is not None and self.line is not None


def from_problem(text: str, severity: str = ERROR, title: str = "Invalid manifest") -> Finding:
    """A validation problem or warning as `validate` prints it: `file:line:column: message`
    (the location left out when the text has none)."""
    match = _PROBLEM.match(text)
    if match is None:
        return Finding(severity, title, text)
    file, line, column = match["file"], int(match["line"]), int(match["column"])
    return Finding(severity, title, match["message"], file, line, column)


def from_problems(
    errors: Iterable[str] = (), warnings: Iterable[str] = (), title: str = "Invalid manifest"
) -> list[Finding]:
    return [from_problem(text, ERROR, title) for text in errors] + [
        from_problem(text, WARNING, "Manifest warning") for text in warnings
    ]


_PLAN_LISTS = (
    ("errors", ERROR, "Plan error"),
    ("warnings", WARNING, "Plan warning"),
    ("notes", NOTICE, "Plan note"),
)


def from_plan(plan: Mapping[str, Any]) -> list[Finding]:
    """The findings of a plan's JSON (`Plan.to_dict()`): its errors, warnings and notes,
    and the safety brake's reasons when it holds (placed on the manifest line of the first
    removal or disable that has one; a prune's removals have none)."""
    found: list[Finding] = []
    for key, severity, title in _PLAN_LISTS:
        for item in plan.get(key) or ():
            found.append(_diagnostic(item, severity, title))
    brake = plan.get("brake") or {}
    if brake.get("holds"):
        where = next(
            (
                _place(change.get("source"))
                for change in plan.get("changes") or ()
                if _removes(change) and change.get("source")
            ),
            (None, None, None),
        )
        for reason in brake.get("reasons") or ():
            found.append(Finding(ERROR, "Safety brake", f"apply would refuse: {reason}", *where))
    found.extend(_labelled(plan))
    return found


def _labelled(plan: Mapping[str, Any]) -> list[Finding]:
    """A labelled change (docs/drift.md) on its manifest line: a drift is a warning (a
    person must look), a pending change a notice (the apply job will carry it).
    Unlabelled changes have none, as without the applied mark."""
    found = []
    for change in plan.get("changes") or ():
        cause = change.get("cause")
        if not cause:
            continue
        severity = NOTICE if cause == "pending" else WARNING
        title = {"drift": "Drift", "pending": "Pending"}.get(cause, "Drift and pending")
        message = f"{change['address']}: {change['action']} ({cause})"
        found.append(Finding(severity, title, message, *_place(change.get("source"))))
    return found


def _removes(change: Mapping[str, Any]) -> bool:
    """A prune, a delete or a disable: what the safety brake counts."""
    return bool(change.get("removal")) or change.get("action") in ("delete", "disable")


def _diagnostic(item: Mapping[str, Any], severity: str, title: str) -> Finding:
    subject = f"{item['address']}: " if item.get("address") else ""
    remedy = f" ({item['remedy']})" if item.get("remedy") else ""
    return Finding(
        severity, title, f"{subject}{item['message']}{remedy}", *_place(item.get("location"))
    )


def _place(location: str | None) -> tuple[str | None, int | None, int | None]:
    match = _LOCATION.match(location or "")
    if match is None:
        return None, None, None
    column = match["column"]
    return match["file"], int(match["line"]), int(column) if column else None


def for_environment(findings: Iterable[Finding], name: str, where: str) -> list[Finding]:
    """The findings of one environment of a run over several, each naming it; one that
    has no place in a manifest (an unreachable helpdesk, a refused token) is placed on the
    environment's line in the project file, `where` (`reconciler.yaml:17:3`), so that it
    is shown beside the environment it is about."""
    file, line, column = _place(where)
    return [
        replace(finding, environment=name)
        if finding.located
        else replace(finding, environment=name, file=file, line=line, column=column)
        for finding in findings
    ]
