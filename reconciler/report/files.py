"""The reports a run asked for, written even when the run fails (that is when they
matter): the findings as GitHub annotations (on stderr) or a GitLab Code Quality file,
and the HTML page, the JUnit file and the job summary of the run's plans. Each file
through the writer of every output file (`masking.write_text`): whole or not at all, and
an unwritable path is a one-line error."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from typing import Any

import click

from reconciler.errors import ProblemsError, ReconcilerError
from reconciler.masking import write_text
from reconciler.report.annotations import (
    GITHUB,
    code_quality_json,
    github_commands,
    platform_from,
)
from reconciler.report.findings import Finding, from_plan, from_problems


class Findings:
    """What a run found, added as it goes; written by `reported` when the run ends.
    `written`: whether anything will be written (annotations on GitHub, --codequality),
    so that a run with neither need not convert its plan for them."""

    def __init__(self, *, written: bool = True) -> None:
        self.items: list[Finding] = []
        self.written = written

    def problems(self, errors: Sequence[str] = (), warnings: Sequence[str] = ()) -> None:
        self.items.extend(from_problems(errors, warnings))

    def plan(self, plan: Callable[[], dict[str, Any]]) -> None:
        """The plan's findings, from its JSON (`plan()`), asked for only when written."""
        if self.written:
            self.items.extend(from_plan(plan()))


@contextmanager
def reported(
    annotations: str | None, codequality: Path | None, paths: tuple[Path, ...]
) -> Iterator[Findings]:
    """Collects findings in the block; a manifest error or any other error of the run is
    one too. At the end (error or not), prints the annotations and writes --codequality."""
    platform = platform_from(annotations)
    findings = Findings(written=platform == GITHUB or codequality is not None)
    try:
        yield findings
    except ProblemsError as err:
        findings.problems(err.problems)
        raise
    except ReconcilerError as err:
        findings.items.append(Finding("error", "reconciler failed", str(err)))
        raise
    finally:
        write_findings(annotations, codequality, paths, findings.items)


def write_findings(
    annotations: str | None,
    codequality: Path | None,
    paths: tuple[Path, ...],
    items: Sequence[Finding],
) -> None:
    """The annotations printed (on GitHub) and --codequality written, for the findings of
    one run or those gathered over several environments."""
    found = [_relative(finding) for finding in items]
    if platform_from(annotations) == GITHUB:
        for line in github_commands(found):
            click.echo(line, err=True)
    if codequality is not None:
        fallback = paths[0].as_posix() if paths else "."
        write_text(codequality, code_quality_json(found, fallback))


def _relative(finding: Finding) -> Finding:
    """Both platforms place a finding by its path from the repository's root, the working
    directory in CI: an absolute path under it is made relative."""
    if finding.file and Path(finding.file).is_absolute():
        try:
            relative = Path(finding.file).relative_to(Path.cwd())
        except ValueError:
            return finding
        return replace(finding, file=relative.as_posix())
    return finding


def write_plan_reports(
    plan: Callable[[], dict[str, Any]],
    html_file: Path | None,
    junit_file: Path | None,
    job_summary_file: str | None,
    source_url: str | None,
    saved: Path | None,
) -> None:
    """The reports of one plan (its JSON, `plan()`), each only when asked for: with none
    asked for, the plan is not converted (a large plan's JSON is tens of milliseconds)."""
    from reconciler.report.digest import Planned

    if html_file is None and junit_file is None and job_summary_file is None:
        return
    as_json = plan()
    planned = [Planned(as_json, as_json.get("environment"))]
    write_reports(planned, html_file, junit_file, job_summary_file, source_url, saved)


def write_reports(
    plans: list[Any],
    html_file: Path | None,
    junit_file: Path | None,
    job_summary_file: str | None,
    source_url: str | None,
    saved: Path | None,
) -> None:
    """The reports of the plans of one run (`Planned`, one per environment), each only
    when asked for: one HTML page, one JUnit file and one job summary for all of them."""
    if html_file is not None:
        from reconciler.report.html import html_report

        write_text(html_file, html_report(plans, source_url=source_url))
        click.echo(f"Wrote the HTML report to {html_file}.", err=True)
    if junit_file is not None:
        from reconciler.report.junit import junit_xml

        write_text(junit_file, junit_xml(plans))
    if job_summary_file is not None:
        from reconciler.report.summary import append_summary, job_summary, where_from

        where = where_from(os.environ, saved, html_file)
        append_summary(job_summary_file, job_summary(plans, where))
