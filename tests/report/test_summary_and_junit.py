"""The job summary (counts per kind and action, the brake, the errors, where the plan is,
within GitHub's 1 MiB) and the JUnit XML (a test case per kind and environment)."""

from __future__ import annotations

from pathlib import Path
from xml.etree import ElementTree as ET

from reconciler.report.digest import Planned
from reconciler.report.junit import junit_xml
from reconciler.report.summary import SUMMARY_LIMIT, append_summary, fit, job_summary, where_from
from tests.report.plans import clean, drifted, every_diagnostic, failed, several_kinds


def test_the_summary_counts_per_kind_and_action_and_says_where_the_plan_is() -> None:
    text = job_summary([Planned(several_kinds("prod"))], ["`plan.json`"])
    assert "### :warning: changes (1 create, 2 update, 1 disable)" in text
    assert "| kind | create | update | delete | enable | disable |" in text
    assert "| `companies` |  | 1 |  |  |  |" in text
    assert "| `users` | 1 | 1 |  |  | 1 |" in text
    assert "Safety brake: passes." in text
    assert text.endswith("The full plan: `plan.json`.\n")


def test_the_summary_shows_the_brake_errors_and_each_environment() -> None:
    text = job_summary([Planned(every_diagnostic(), "prod"), Planned(clean(), "staging")])
    assert "### prod: :x: errors: nothing may be applied" in text
    assert "**Safety brake holds**: apply refuses this plan without `--force`: " in text
    assert '- `manifests/people.yaml:12:7` `users["alice"]`: company' in text
    assert "### staging: :white_check_mark: no changes" in text


def test_where_names_the_run_under_github_actions() -> None:
    env = {
        "GITHUB_SERVER_URL": "https://github.com",
        "GITHUB_REPOSITORY": "a/b",
        "GITHUB_RUN_ID": "9",
    }
    assert where_from(env, Path("plan.json"), None) == [
        "`plan.json`",
        "the artifacts of [this run](https://github.com/a/b/actions/runs/9)",
    ]


def test_the_summary_stays_within_githubs_limit(tmp_path: Path) -> None:
    summary = tmp_path / "step_summary.md"
    summary.write_text("x" * (SUMMARY_LIMIT - 500), encoding="utf-8")  # earlier steps' text
    text = job_summary([Planned(several_kinds("p" * 50))] * 40)
    assert len(text.encode()) > 500
    append_summary(str(summary), text)
    size = summary.stat().st_size
    assert SUMMARY_LIMIT - 200 < size <= SUMMARY_LIMIT
    assert summary.read_text(encoding="utf-8").endswith("the full plan has it._\n")
    assert fit("é" * 10, 7) == ""  # never half a character, never past the room


def test_junit_fails_the_kinds_with_drift_and_errors_the_plan() -> None:
    root = ET.fromstring(junit_xml([Planned(drifted())]))
    [suite] = root
    cases = {c.get("name"): c for c in suite}
    assert list(cases) == ["companies"]
    failure = cases["companies"].find("failure")
    assert failure is not None and failure.get("message") == "companies: 1 update"
    assert 'update companies["Acme Corp"] (manifests/companies.yaml:3)' in (failure.text or "")
    assert root.get("tests") == "1" and root.get("failures") == "1"

    root = ET.fromstring(junit_xml([Planned(clean()), Planned(failed())]))
    assert [s.get("name") for s in root] == ["reconciler plan: default", "reconciler plan: default"]
    passing, broken = root
    assert [c.get("name") for c in passing] == ["companies"] and passing.get("failures") == "0"
    [case] = broken
    assert case.get("name") == "plan" and case.find("error") is not None
    assert root.get("errors") == "1"


def test_junit_has_a_case_per_kind_and_environment() -> None:
    root = ET.fromstring(
        junit_xml([Planned(several_kinds("prod"), "prod"), Planned(clean(), "staging")])
    )
    names = [(c.get("classname"), c.get("name")) for s in root for c in s]
    assert names == [
        ("reconciler.prod", "companies"),
        ("reconciler.prod", "users"),
        ("reconciler.staging", "companies"),
    ]
    assert root.get("failures") == "2" and root.get("tests") == "3"
