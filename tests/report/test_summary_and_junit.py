"""The job summary (counts per kind and action, the brake, the errors, where the plan is,
within GitHub's 1 MiB) and the JUnit XML (a test case per kind and environment)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from xml.etree import ElementTree as ET

import pytest

from reconciler.masking import REDACTED, install, register
from reconciler.plans import Action, BrakeVerdict, Change, Diagnostic, FieldChange, Plan, error
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


# `plan --job-summary FILE` (GitHub's `$GITHUB_STEP_SUMMARY`): the Markdown a reviewer reads on
# the run's page, golden, for several environments (each one's headline, counts, brake and errors,
# a cell's `|` and line break kept inside its cell); the errors listed up to 50 and the rest
# counted; the 1 MiB GitHub takes, shared with earlier steps, cut at a line and never inside a
# character.

CUT = (
    "\n\n_The rest of this summary is left out (GitHub's limit for a job summary); "
    "the full plan has it._\n"
)
MIB = 1024 * 1024


def errors(count: int) -> Planned:
    found = tuple(error(f"error {n}", location=f"m.yaml:{n}:1") for n in range(count))
    return Planned(Plan((), errors=found).to_dict())


def test_the_job_summary_of_several_environments_shows_each_of_them() -> None:
    odd = Plan(
        (),
        errors=(error("a | b\nc", address="users['x|y']"),),
    ).to_dict()
    plans = [
        Planned(every_diagnostic(), "prod|eu"),
        Planned(several_kinds("staging"), "staging"),
        Planned(clean(), "qa"),
        Planned(failed(), "dev"),
        Planned(odd, "odd"),
    ]
    text = job_summary(plans, ["`plan.json`", "the artifacts"], title="Plan | all")
    assert text == (
        "## Plan \\| all\n"
        "\n"
        "### prod\\|eu: :x: errors: nothing may be applied (1 disable)\n"
        "\n"
        "| kind | create | update | delete | enable | disable |\n"
        "|---|---|---|---|---|---|\n"
        "| `users` |  |  |  |  | 1 |\n"
        "\n"
        "**Safety brake holds**: apply refuses this plan without `--force`: "
        "would disable 1 of 2 users (50%) &gt; 25%\n"
        "\n"
        "**2 errors:**\n"
        '- `manifests/people.yaml:12:7` `users["alice"]`: '
        "company 'Globex, Inc: 100%' does not exist\n"
        "- the workspace refused the read: 500\n"
        "\n"
        "1 warning(s): see the full plan.\n"
        "\n"
        "### staging: :warning: changes (1 create, 2 update, 1 disable)\n"
        "\n"
        "| kind | create | update | delete | enable | disable |\n"
        "|---|---|---|---|---|---|\n"
        "| `companies` |  | 1 |  |  |  |\n"
        "| `users` | 1 | 1 |  |  | 1 |\n"
        "\n"
        "Safety brake: passes.\n"
        "\n"
        "1 warning(s): see the full plan.\n"
        "\n"
        "### qa: :white_check_mark: no changes: live matches the manifests\n"
        "\n"
        "Safety brake: passes.\n"
        "\n"
        "### dev: :x: errors: nothing may be applied (no changes)\n"
        "\n"
        "**1 error:**\n"
        "- the helpdesk refused the read\n"
        "\n"
        "### odd: :x: errors: nothing may be applied (no changes)\n"
        "\n"
        "**1 error:**\n"
        "- `users['x\\|y']`: a \\| b c\n"
        "\n"
        "The full plan: `plan.json`, the artifacts.\n"
    )


def test_one_plan_has_no_environment_in_its_heading() -> None:
    assert job_summary([Planned(clean(), "prod")]).startswith(
        "## reconciler plan\n\n### :white_check_mark: no changes"
    )
    held = Plan((), errors=(error("no field SEX"),), brake=BrakeVerdict(("one", "two")))
    text = job_summary([Planned(held.to_dict())])
    assert "apply refuses this plan without `--force`: one; two\n" in text
    assert text.endswith("\n- no field SEX\n")  # the last line whole, one line break


@pytest.mark.parametrize(
    ("count", "last"),
    [(50, "- `m.yaml:49:1` error 49"), (52, "- ... and 2 more (in the full plan)")],
)
def test_fifty_errors_are_listed_and_the_rest_counted(count: int, last: str) -> None:
    lines = job_summary([errors(count)]).splitlines()
    assert f"**{count} errors:**" in lines
    listed = [line for line in lines if line.startswith("- `m.yaml:")]
    assert listed == [f"- `m.yaml:{n}:1` error {n}" for n in range(50)]
    assert lines[-1] == last


def test_what_fits_is_kept_whole() -> None:
    text = "line one\nline two\n" + "more " * 40 + "\n"
    assert fit(text, len(text)) == text
    room = len(CUT) + len("line one\nline")  # the second line does not fit: cut at its start
    assert fit(text, room) == "line one\n" + CUT
    assert fit("x" * 300, len(CUT) + 5) == CUT
    assert fit("x" * 300, len(CUT)) == CUT  # the note alone
    assert fit("\n" + "x" * 300, len(CUT)) == CUT
    assert fit(text, len(CUT) - 1) == ""  # not even the note fits
    # a cut inside a two-byte character drops the character, not the text
    assert fit("ab\n" + "é" * 400, len(CUT.encode()) + 4) == "ab\n" + CUT


def test_the_summary_file_holds_at_most_one_mib(tmp_path: Path) -> None:
    summary = tmp_path / "summary.md"
    append_summary(str(summary), "x\n" * MIB)
    assert MIB - 200 < summary.stat().st_size <= MIB
    new = tmp_path / "new.md"
    append_summary(str(new), "12345\n", limit=6)  # a new file: all the room is left
    assert new.read_text(encoding="utf-8") == "12345\n"
    full = tmp_path / "full.md"
    full.write_text("y" * 10, encoding="utf-8")
    append_summary(str(full), "z", limit=9)  # past the limit already: nothing more
    assert full.read_text(encoding="utf-8") == "y" * 10


def test_no_link_to_the_run_without_every_variable() -> None:
    env = {"GITHUB_SERVER_URL": "https://github.com", "GITHUB_REPOSITORY": "a/b"}
    assert where_from(env, None, Path("plan.html")) == ["`plan.html`"]
    assert where_from({"GITHUB_RUN_ID": "9"}, None, None) == []


# `plan --junit FILE`: a change with many fields lists the first 20 in its failure's text and
# counts the rest, so that a CI dashboard's page stays readable.


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
    assert lines[1:] == [f'    custom_fields.f{n:02d}: "a" -> "b"' for n in range(20)]


def test_past_twenty_fields_the_rest_are_counted() -> None:
    lines = failure_text(23).splitlines()
    assert lines[1:21] == [f'    custom_fields.f{n:02d}: "a" -> "b"' for n in range(20)]
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


# `plan --junit`: a credential that reached a plan (a value pasted into a manifest, an error
# quoting it, an environment's name) never reaches the JUnit file, wherever it is shown: the
# suite's name, the cases' class names, a failure's text, an error's message.

SECRET = "s3cr3t-v4lue"


@pytest.fixture(autouse=True)
def masked() -> Iterator[None]:
    install({})
    register(SECRET)
    yield
    install({})


def test_a_credential_is_masked_everywhere_in_the_file() -> None:
    change = Change("companies", "Acme", Action.update, fields=(FieldChange("notes", SECRET, "x"),))
    failed = Plan(
        changes=(),
        errors=(Diagnostic("error", f"refused {SECRET}", location=f"{SECRET}.yaml:1"),),
    )
    text = junit_xml(
        [
            Planned(Plan((change,)).to_dict(), f"env-{SECRET}"),
            Planned(failed.to_dict(), f"b-{SECRET}"),
        ]
    )
    assert SECRET not in text
    assert f'name="reconciler plan: env-{REDACTED}"' in text
    assert f'classname="reconciler.env-{REDACTED}"' in text
    assert f'notes: "{REDACTED}" -&gt; "x"' in text
    assert f'message="{REDACTED}.yaml:1: refused {REDACTED}"' in text
