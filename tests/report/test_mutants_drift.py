"""The drift issue as its readers see it: the body whole (the marker the next check finds
it by, the summary under the title `reconciler drift`, what to do), the oldest issue of
the environment kept when the marker was copied, and the comment that closes it naming
where the clean plan was found (or the latest drift check)."""

from __future__ import annotations

from reconciler.report.digest import Planned
from reconciler.report.drift import CLOSE, Issue, decide
from tests.report.plans import clean, drifted


def test_the_body_of_a_new_drift_issue() -> None:
    decision = decide(Planned(drifted(), "prod"), [], ["`plan.json`"])
    assert decision.body == (
        "<!-- reconciler-drift: prod -->\n"
        "## reconciler drift\n"
        "\n"
        "### :warning: changes (1 update)\n"
        "\n"
        "| kind | create | update | delete | enable | disable |\n"
        "|---|---|---|---|---|---|\n"
        "| `companies` |  | 1 |  |  |  |\n"
        "\n"
        "Safety brake: passes.\n"
        "\n"
        "The full plan: `plan.json`.\n"
        "\n"
        "This issue is kept up to date by each drift check and closed when live matches the "
        "manifests again. To resolve it, apply the manifests, or change them to match what "
        "was changed by hand.\n"
    )


def test_the_oldest_issue_with_the_marker_is_the_one_updated() -> None:
    body = "<!-- reconciler-drift: prod -->\n..."
    issues = [Issue(12, "copy", body), Issue(7, "first", body), Issue(30, "other", "<!-- x -->")]
    decision = decide(Planned(drifted(), "prod"), issues)
    assert decision.issue is not None and decision.issue.number == 7


def test_the_closing_comment_says_where_the_clean_plan_was_found() -> None:
    issue = Issue(7, "Drift in prod", "<!-- reconciler-drift: prod -->\n")
    closing = decide(Planned(clean(), "prod"), [issue], ["`a.json`", "`b.html`"])
    assert (closing.action, closing.issue) == (CLOSE, issue)
    assert closing.comment == (
        "The drift is gone: `a.json`, `b.html` found no changes (no changes). Closing."
    )
    latest = decide(Planned(clean(), "prod"), [issue])
    assert latest.comment.startswith("The drift is gone: the latest drift check found no")
