"""`plan --junit FILE`: a change with many fields lists the first 20 in its failure's text
and counts the rest, so that a CI dashboard's page stays readable."""

from __future__ import annotations

from pathlib import Path
from xml.etree import ElementTree as ET

from reconciler.plans import Action, Change, FieldChange, Plan
from reconciler.report.digest import Planned
from reconciler.report.junit import junit_xml
from tests.report.plans import clean, every_diagnostic


def failure_text(fields: int) -> str:
    change = Change(
        "users",
        "alice",
        Action.update,
        fields=tuple(FieldChange(f"custom_fields.f{n:02d}", "a", "b") for n in range(fields)),
        source="manifests/people.yaml:3",
    )
    root = ET.fromstring(junit_xml([Planned(Plan((change,)).to_dict())]))
    [failure] = root.iter("failure")
    return failure.text or ""


def test_twenty_fields_are_listed_whole() -> None:
    lines = failure_text(20).splitlines()
    assert lines[0] == 'update users["alice"] (manifests/people.yaml:3)'
    assert lines[1:] == [f"    custom_fields.f{n:02d}: 'a' -> 'b'" for n in range(20)]


def test_past_twenty_fields_the_rest_are_counted() -> None:
    lines = failure_text(23).splitlines()
    assert lines[1:21] == [f"    custom_fields.f{n:02d}: 'a' -> 'b'" for n in range(20)]
    assert lines[21:] == ["    ... and 3 more fields"]


def test_the_file_is_indented_one_element_a_line() -> None:
    # Read in CI artifacts as well as by dashboards.
    text = junit_xml([Planned(Plan(()).to_dict())])
    assert text.splitlines()[:3] == [
        '<?xml version="1.0" encoding="UTF-8"?>',
        '<testsuites name="reconciler" tests="0" failures="0" errors="0">',
        '  <testsuite name="reconciler plan" tests="0" failures="0" errors="0" />',
    ]


# What a CI dashboard shows: one suite per environment (or one suite), a failing case per
# kind that drifts, a case `plan` with an error per plan error, where and what it is about.
GOLDEN = Path(__file__).parent / "golden"


def test_the_whole_file_for_one_plan_and_for_several_environments() -> None:
    several = [Planned(every_diagnostic(), "prod"), Planned(clean(), "staging")]
    assert junit_xml(several) == (GOLDEN / "junit_several.xml").read_text(encoding="utf-8")
    one = [Planned(every_diagnostic())]
    assert junit_xml(one) == (GOLDEN / "junit_one.xml").read_text(encoding="utf-8")
