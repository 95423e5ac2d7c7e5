"""The drift issue's decision (pure): one open issue labelled `drift` per environment,
opened when a plan has changes, updated while they last, closed with a comment when the
plan is clean again. A plan with errors decides nothing: that run is a failed job, not
drift (`PlanFailed`).

The issue is found again by the hidden marker its body starts with,
`<!-- reconciler-drift: NAME -->`, among the open issues with the label; an issue
someone wrote by hand, even with the label, is never touched."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from reconciler.errors import ReconcilerError
from reconciler.report.digest import Planned, describe_counts, plan_counts, status
from reconciler.report.summary import job_summary

LABEL = "drift"
OPEN = "open"
UPDATE = "update"
CLOSE = "close"
NOTHING = "nothing"


class PlanFailed(ReconcilerError):
    """The plan carries errors: it says nothing about drift."""


@dataclass(frozen=True)
class Issue:
    """An open issue as the platform lists it (`number`: GitHub's number, GitLab's iid)."""

    number: int
    title: str
    body: str
    labels: tuple[str, ...] = ()


@dataclass(frozen=True)
class Decision:
    action: str
    title: str = ""
    body: str = ""
    comment: str = ""
    issue: Issue | None = None


def marker(environment: str | None) -> str:
    return f"<!-- reconciler-drift: {environment or 'default'} -->"


def ours(issues: Sequence[Issue], environment: str | None) -> Issue | None:
    """The issue this environment's drift is tracked in: the oldest whose body starts
    with its marker (there is at most one unless someone copied the marker)."""
    mine = [i for i in issues if i.body.startswith(marker(environment))]
    return min(mine, key=lambda i: i.number) if mine else None


def title(planned: Planned) -> str:
    where = f" in {planned.environment}" if planned.environment else ""
    causes = {change.get("cause") for change in planned.changes}
    if causes and causes <= {"pending"}:  # labelled, and none of it changed by hand
        return f"Pending{where}: merged manifest changes not applied yet"
    return f"Drift{where}: the live helpdesk differs from the manifests"


def by_cause(planned: Planned) -> str:
    """The labelled changes (docs/drift.md), drift first: what a person must look at
    before what the apply job will carry. Empty when the plan is unlabelled."""
    groups = (
        ("Drift (changed by hand since the last apply)", ("drift", "drift+pending")),
        ("Pending (merged, not applied yet)", ("pending",)),
    )
    sections = []
    for heading, causes in groups:
        items = [
            f"- `{change['address']}` ({change['action']}, {change['cause']})"
            for change in planned.changes
            if change.get("cause") in causes
        ]
        if items:
            sections.append(f"### {heading}\n\n" + "\n".join(items) + "\n")
    return "\n".join(sections)


def body(planned: Planned, where: Sequence[str] = ()) -> str:
    causes = by_cause(planned)
    head = f"{marker(planned.environment)}\n" + (f"{causes}\n" if causes else "")
    return (
        head
        + job_summary([planned], where, title="reconciler drift")
        + "\nThis issue is kept up to date by each drift check and closed when live matches "
        "the manifests again. To resolve it, apply the manifests, or change them to match "
        "what was changed by hand.\n"
    )


def decide(planned: Planned, issues: Sequence[Issue], where: Sequence[str] = ()) -> Decision:
    """What to do with this environment's drift issue, given the open issues labelled
    `drift` (`issues`) and the latest plan."""
    state = status(planned)
    if state == "error":
        raise PlanFailed(
            f"the plan has {len(planned.errors)} error(s): no drift issue is opened, updated "
            "or closed for a failed plan (the job fails instead)"
        )
    current = ours(issues, planned.environment)
    if state == "drift":
        action = UPDATE if current else OPEN
        return Decision(action, title(planned), body(planned, where), issue=current)
    if current is None:
        return Decision(NOTHING)
    seen = ", ".join(where) or "the latest drift check"
    counts = describe_counts(plan_counts(planned))
    comment = f"The drift is gone: {seen} found no changes ({counts}). Closing."
    return Decision(CLOSE, comment=comment, issue=current)
