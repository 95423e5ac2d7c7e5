"""`plan --html FILE`: the page a reviewer reads, golden, for one plan (a title, links to
the manifest lines, a change with its reason, its fields before and after and its API
operations, a live object no entry names, the coverage with the kinds not read in full)
and for several environments (each one's status, brake verdict and counts, the problems
labelled by environment, the environment filter). The style and the script
(in html.py) are checked by the browser tests; here the page around them.

    python -m tests.report.test_report_page     # write the golden pages again"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from reconciler.plans import (
    Action,
    BrakeVerdict,
    Change,
    FieldChange,
    Operation,
    Plan,
    RenameHint,
    error,
    warning,
)
from reconciler.plans.coverage import Coverage, KindCoverage
from reconciler.report.digest import Planned
from reconciler.report.html import CSP, CSS, SCRIPT, html_report
from tests.report.plans import clean, drifted, every_diagnostic, failed, several_kinds

GOLDEN = Path(__file__).parent / "golden"
SOURCE_URL = "https://git.example.com/acme/blob/main/"


def detailed() -> dict[str, Any]:
    """Changes of three kinds: one with a reason, values of every shape and two
    operations; one no entry names; one renamed; a create that looks like an unlisted
    object renamed (its hint); coverage with a kind not read in full."""
    operation = Operation("helpdesk", "POST", "/api/UpdateCompany", {"CompanyID": 7})
    changes = (
        Change(
            "companies",
            "Acme & Sons",
            Action.update,
            fields=(
                FieldChange("notes", None, "Über <b>"),
                FieldChange("email_domains", ["b.example", "a.example"], {"z": 1, "a": "é"}),
                FieldChange("custom_fields.Tier", 3, True),
            ),
            operations=(operation, operation),
            reason="the notes were cleared by hand",
            source="manifests/companies.yaml:12",
        ),
        Change("companies", "Old Co", Action.delete, removal=True),
        Change("departments", "Ops", Action.create, source="../outside.yaml:4"),
        Change(
            "companies",
            "Acme Corporation",
            Action.create,
            source="manifests/companies.yaml:20",
            rename_hints=(
                RenameHint(
                    "Acme Corp",
                    4,
                    "looks like the unlisted company 'Acme Corp' (id 4) renamed: both have the"
                    " e-mail domain acme.com",
                    "previously: [Acme Corp]",
                ),
            ),
        ),
        Change("users", "alice", Action.enable, source="manifests/people.yaml:3"),
    )
    coverage = Coverage(
        {
            "companies": KindCoverage(5, 3, ("Globex", "Initech")),
            "departments": KindCoverage(1, 1),
        },
        {"users": "only the listed users were read", "assets": "the helpdesk has no assets"},
    )
    return Plan(
        changes,
        errors=(error("no such department", address='users["alice"]', location="m.yaml:3:9"),),
        warnings=(warning("a warning of the whole run"),),
        brake=BrakeVerdict(("would delete 1 of 5 companies", "would delete a department")),
        coverage=coverage,
    ).to_dict()


def one_page() -> str:
    return html_report([Planned(detailed())], source_url=SOURCE_URL, title="Plan <prod> & co")


def several_pages() -> str:
    plans = [
        Planned(every_diagnostic(), "prod"),
        Planned(several_kinds("staging"), "staging"),
        Planned(clean(), "qa"),
        Planned(failed(), "dev"),
    ]
    return html_report(plans, source_url=SOURCE_URL)


def body(page: str) -> str:
    """The page between its style and its script, one element a line (readable diffs)."""
    head, rest = page.split(f"<style>{CSS}</style>", 1)
    inner, tail = rest.split(f"<script>{SCRIPT}</script>", 1)
    return "\n".join([head, inner.replace("><", ">\n<"), tail])


def test_the_page_of_one_plan_shows_every_part_of_it() -> None:
    assert body(one_page()) == (GOLDEN / "html_one.txt").read_text(encoding="utf-8")


def test_the_page_of_several_environments_shows_each_of_them() -> None:
    assert body(several_pages()) == (GOLDEN / "html_several.txt").read_text(encoding="utf-8")


def test_a_plan_without_changes_or_problems_says_so() -> None:
    page = html_report([Planned(clean())])
    assert "No changes: 0 change(s) in 0 kind(s), 0 error(s), 0 warning(s).</p>" in page
    assert '<section id="changes"><h2>Changes</h2><p class=muted>No changes.</p></section>' in page
    assert '</nav><section id="summary">' in page  # no problems section between
    assert 'id="filter-env"' not in page


def test_two_environments_are_told_apart() -> None:
    page = html_report([Planned(failed(), "prod"), Planned(clean(), "staging")])
    assert (
        "Errors: 0 change(s) in 0 kind(s), 1 error(s), 0 warning(s) (2 environments).</p>" in page
    )
    assert "<strong>error</strong> <span class=muted>[prod]</span>" in page
    assert '<label>environment<select id="filter-env">' in page
    assert '<h3>staging</h3><div class="table-wrap"><table class="coverage">' in page
    page = html_report([Planned(drifted(), "prod"), Planned(clean(), "staging")])
    assert "Changes: 1 change(s) in 1 kind(s), 0 error(s), 0 warning(s) (2 environments)." in page


def test_the_page_allows_nothing_but_itself() -> None:
    page = one_page()
    assert page.startswith('<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">')
    assert f'<meta http-equiv="Content-Security-Policy" content="{CSP}">' in page
    assert page.endswith("</body></html>\n")


if __name__ == "__main__":
    (GOLDEN / "html_one.txt").write_text(body(one_page()), encoding="utf-8")
    (GOLDEN / "html_several.txt").write_text(body(several_pages()), encoding="utf-8")
    sys.stdout.write("wrote tests/report/golden/html_one.txt, html_several.txt\n")
