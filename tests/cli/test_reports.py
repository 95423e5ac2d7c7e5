"""The report options' writing (report/files.py), in-process: each report of a plan is the
report module's own output for that plan, environment included; the findings of a run
that fails are written too, their paths made relative to the repository's root."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from reconciler.errors import ProblemsError, ReconcilerError
from reconciler.report.annotations import code_quality_json, github_commands
from reconciler.report.digest import Planned
from reconciler.report.files import reported, write_findings, write_plan_reports
from reconciler.report.findings import Finding, from_plan
from reconciler.report.html import html_report
from reconciler.report.junit import junit_xml
from reconciler.report.summary import job_summary, where_from
from tests.report.plans import drifted, every_diagnostic

NO_CI = ("GITHUB_ACTIONS", "GITLAB_CI", "GITHUB_RUN_ID", "GITHUB_SERVER_URL", "CI_JOB_URL")


@pytest.fixture(autouse=True)
def outside_ci(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in NO_CI:
        monkeypatch.delenv(name, raising=False)


def test_each_report_of_a_plan_names_its_environment(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    plan = {**drifted(), "environment": "prod"}
    html, junit, summary = tmp_path / "p.html", tmp_path / "p.xml", tmp_path / "s.md"
    summary.write_text("before\n", encoding="utf-8")
    write_plan_reports(lambda: plan, html, junit, summary, None, None)
    planned = [Planned(plan, "prod")]
    assert html.read_text(encoding="utf-8") == html_report(planned)
    assert 'data-env="prod"' in html.read_text(encoding="utf-8")
    assert junit.read_text(encoding="utf-8") == junit_xml(planned)
    # Appended to the job summary, never replacing what other steps wrote; it points to
    # the HTML page.
    where = where_from({}, None, html)
    assert where == [f"`{html}`"]
    assert summary.read_text(encoding="utf-8") == "before\n" + job_summary(planned, where)
    assert capsys.readouterr().err == f"Wrote the HTML report to {html}.\n"


def test_no_report_is_written_unless_asked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    asked: list[str] = []

    def as_json() -> dict[str, object]:
        asked.append("converted")
        return drifted()

    write_plan_reports(as_json, None, None, None, None, None)
    assert list(tmp_path.iterdir()) == []
    assert capsys.readouterr().err == ""
    assert asked == []  # nothing asked for: the plan is not even converted


@pytest.mark.parametrize(
    ("annotations", "codequality", "converted"),
    [("none", False, False), ("gitlab", False, False), ("github", False, True),
     ("none", True, True), ("gitlab", True, True)],
)  # fmt: skip
def test_a_plan_is_converted_for_its_findings_only_when_they_are_written(
    tmp_path: Path, annotations: str, codequality: bool, converted: bool
) -> None:
    asked: list[str] = []

    def as_json() -> dict[str, object]:
        asked.append("converted")
        return every_diagnostic()

    quality = tmp_path / "cq.json" if codequality else None
    with reported(annotations, quality, ()) as findings:
        findings.plan(as_json)
    assert asked == (["converted"] if converted else [])
    assert findings.items == (from_plan(every_diagnostic()) if converted else [])


def test_a_failed_run_still_writes_its_findings(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    quality = tmp_path / "cq.json"
    inside = f"{tmp_path}/m/a.yaml:3:5: unknown field"
    error = ProblemsError([inside, "/elsewhere/b.yaml:1:1: bad"])
    with pytest.raises(ProblemsError) as raised, reported("github", quality, (Path("m"),)):
        raise error
    assert raised.value is error  # passed on as it was, once its findings are written
    expected = [
        Finding("error", "Invalid manifest", "unknown field", "m/a.yaml", 3, 5),
        Finding("error", "Invalid manifest", "bad", "/elsewhere/b.yaml", 1, 1),
    ]
    assert capsys.readouterr().err == "".join(f"{line}\n" for line in github_commands(expected))
    assert quality.read_text(encoding="utf-8") == code_quality_json(expected, "m")


def test_any_other_error_of_the_run_is_one_finding(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    quality = tmp_path / "cq.json"
    error = ReconcilerError("the helpdesk refused")
    with pytest.raises(ReconcilerError) as raised, reported("none", quality, ()):
        raise error
    assert raised.value is error
    found = [Finding("error", "reconciler failed", "the helpdesk refused")]
    assert quality.read_text(encoding="utf-8") == code_quality_json(found, ".")
    assert capsys.readouterr().err == ""  # annotations: none


def test_a_clean_run_writes_an_empty_code_quality_report(tmp_path: Path) -> None:
    quality = tmp_path / "cq.json"
    with reported("gitlab", quality, (Path("manifests"),)) as findings:
        findings.problems(warnings=["manifests/a.yaml:1:1: odd"])
    [item] = json.loads(quality.read_text(encoding="utf-8"))
    assert item["location"]["path"] == "manifests/a.yaml"
    write_findings("gitlab", quality, (), [])
    assert json.loads(quality.read_text(encoding="utf-8")) == []
