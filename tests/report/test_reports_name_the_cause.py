"""A labelled plan's reports (docs/drift.md): each change's cause on the HTML page (with a
filter), in JUnit, as an annotation, and in the drift issue, which leads with the drift.
An unlabelled plan's reports are as without labels."""

from __future__ import annotations

from typing import Any

from reconciler.report.digest import Planned
from reconciler.report.drift import body, title
from reconciler.report.findings import NOTICE, WARNING, from_plan
from reconciler.report.html import html_report
from reconciler.report.junit import junit_xml


def change(name: str, cause: str | None) -> dict[str, Any]:
    found: dict[str, Any] = {
        "address": f'companies["{name}"]',
        "kind": "companies",
        "key": name,
        "action": "update",
        "fields": [{"path": "notes", "before": "a", "after": "b"}],
        "operations": [],
        "source": "manifests/companies.yaml:3",
    }
    if cause is not None:
        found["cause"] = cause
    return found


def planned(*changes: dict[str, Any], environment: str | None = None) -> Planned:
    return Planned({"changes": list(changes), "errors": [], "warnings": []}, environment)


BOTH = planned(change("Globex", "pending"), change("Acme", "drift"))


def test_the_drift_issue_lists_the_drift_first_then_what_is_pending() -> None:
    text = body(BOTH)
    drift = text.index("### Drift (changed by hand since the last apply)")
    pending = text.index("### Pending (merged, not applied yet)")
    assert drift < text.index('`companies["Acme"]` (update, drift)') < pending
    assert pending < text.index('`companies["Globex"]` (update, pending)')
    assert title(BOTH) == "Drift: the live helpdesk differs from the manifests"


def test_the_drift_issue_says_pending_when_nothing_was_changed_by_hand() -> None:
    only_pending = planned(change("Globex", "pending"), environment="prod")
    assert title(only_pending) == "Pending in prod: merged manifest changes not applied yet"
    assert "### Drift" not in body(only_pending)


def test_an_unlabelled_plan_keeps_the_drift_title_and_no_cause_lists() -> None:
    unlabelled = planned(change("Globex", None))
    assert title(unlabelled) == "Drift: the live helpdesk differs from the manifests"
    assert "### " not in body(unlabelled).split("\n", 2)[1]


def test_junit_names_each_change_s_cause_and_counts_them() -> None:
    xml = junit_xml([BOTH])
    assert 'message="companies: 2 update (1 drift, 1 pending)"' in xml
    assert 'update companies["Acme"] [drift] (manifests/companies.yaml:3)' in xml
    unlabelled = junit_xml([planned(change("Globex", None))])
    assert 'message="companies: 1 update"' in unlabelled
    assert 'update companies["Globex"] (manifests/companies.yaml:3)' in unlabelled


def test_annotations_warn_of_drift_and_note_what_is_pending() -> None:
    found = {f.message: (f.severity, f.title, f.line) for f in from_plan(BOTH.plan)}
    assert found == {
        'companies["Globex"]: update (pending)': (NOTICE, "Pending", 3),
        'companies["Acme"]: update (drift)': (WARNING, "Drift", 3),
    }
    assert from_plan(planned(change("Globex", None)).plan) == []


def test_the_html_page_shows_the_cause_and_filters_by_it() -> None:
    page = html_report([BOTH])
    assert '<select id="filter-cause">' in page
    assert '<option value="drift">drift</option>' in page
    assert 'data-cause="pending"' in page and '<span class="cause">(drift)</span>' in page
    unlabelled = html_report([planned(change("Globex", None))])
    assert "filter-cause" not in unlabelled.split("<script")[0] and "data-cause" not in unlabelled
