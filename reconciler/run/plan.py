"""`plan` for one environment: read the live state, plan, and print the plan (stdout) and
its diagnostics (stderr), each change labelled drift or pending when the applied mark is
there (docs/drift.md); save it, write its comments and reports when asked. Exits 1 on
errors (or unmanaged objects with --fail-on-unmanaged), 2 on changes with
--detailed-exitcode (those --fail-on counts)."""

from __future__ import annotations

import asyncio
import functools
import sys
from collections.abc import Callable, Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

import click

from reconciler.applied.labels import Cause
from reconciler.errors import UsageError
from reconciler.plans.addresses import selections
from reconciler.plans.planfile import PlanInputs, VarFile, manifests_digest, write_plan_file
from reconciler.project import Target
from reconciler.render import (
    format_diagnostics,
    format_json,
    format_markdown,
    format_text,
    markdown_parts,
)
from reconciler.render.json_format import with_causes
from reconciler.render.markdown import DEFAULT_LIMIT
from reconciler.report.files import reported, write_plan_reports
from reconciler.run.applied import exits_for_changes, plan_labels, saved_commit
from reconciler.run.connect import open_connection
from reconciler.run.flags import PlanFlags
from reconciler.run.inputs import announce, load_manifests, narrowed
from reconciler.run.outputs import check_writable, write_comment_parts
from reconciler.terminal.console import Progress, colour, refuse_partial_coverage, unmanaged_failure
from reconciler.terminal.interrupts import sigterm_as_interrupt


def run_plan(flags: PlanFlags, target: Target | None = None) -> None:
    from reconciler.session.workflow import read_and_plan

    selected, left_out = selections(flags.targets, flags.excludes)
    reports, paths = flags.reports, flags.paths
    _check_outputs(flags.out, reports.comment_dir)
    with reported(reports.annotations, reports.codequality, paths) as findings:
        validated = load_manifests(paths, flags.var_files, target)
        findings.problems(warnings=validated.warnings)
        desired, scope = narrowed(validated.desired, paths, flags.var_files, flags.since,
                                  flags.prune)  # fmt: skip
        refuse_partial_coverage(scope, flags.fail_on_unmanaged)
        with (
            sigterm_as_interrupt(),
            open_connection(flags.connection, target) as conn,
            Progress() as progress,
        ):
            outcome = asyncio.run(
                read_and_plan(
                    desired,
                    conn,
                    prune=flags.prune,
                    targets=selected,
                    excludes=left_out,
                    on_read=progress.read,
                )
            )
        result = outcome.plan
        if scope is not None:  # a partial plan's desired state is not every entry: no coverage
            coverage = None if scope.partial else result.coverage
            result = replace(result, scope=scope.to_dict(), coverage=coverage)
        data = functools.cache(result.to_dict)  # for the labels, the findings and reports
        causes = plan_labels(result, data, outcome.live, paths=paths,
                             var_files=flags.var_files, target=target, prune=flags.prune,
                             targets=selected, excludes=left_out)  # fmt: skip
        as_json = functools.cache(lambda: labelled(data(), causes))  # with each cause
        findings.plan(as_json)
    if flags.out is not None:
        _save(flags, result, validated.desired, target, as_json())
    if reports.comment_dir is not None:
        _write_comments(reports.comment_dir, result, scope, reports.source_url, causes)
    write_plan_reports(as_json, reports.html_file, reports.junit_file,
                       reports.job_summary_file, reports.source_url, flags.out)  # fmt: skip
    _print_plan(flags.fmt, result, scope, reports.source_url, as_json, causes)
    if result.errors or (flags.fail_on_unmanaged and unmanaged_failure(result)):
        sys.exit(1)
    if flags.detailed_exitcode and exits_for_changes(result, causes, flags.fail_on):
        sys.exit(2)


def labelled(data: dict[str, Any], causes: Mapping[str, Cause] | None) -> dict[str, Any]:
    """The plan's JSON with each change's `"cause"`, when labelled."""
    return data if causes is None else with_causes(data, causes)


def _check_outputs(out: Path | None, comment_dir: Path | None) -> None:
    """The files the plan is saved to are checked before any call: fail fast."""
    if out is not None:
        check_writable("--out", out)
    if comment_dir is not None:
        check_writable("--comment-dir", comment_dir, directory=True)


def _save(
    flags: PlanFlags, result: Any, desired: Any, target: Target | None, data: dict[str, Any]
) -> None:
    assert flags.out is not None
    var_files = flags.var_files
    recorded = [VarFile.of(path) for path in var_files]  # read a moment ago
    if None in recorded:
        raise UsageError(f"--var-file: {var_files[recorded.index(None)]} can no longer be read")
    files = tuple(v for v in recorded if v is not None)
    inputs = PlanInputs(
        manifests_digest(desired), flags.prune, flags.targets, flags.excludes, files,
        environment=None if target is None else target.name,
        commit=saved_commit(flags.paths, flags.var_files, target),
    )  # fmt: skip
    write_plan_file(flags.out, result, inputs, data)  # each change with its cause
    click.echo(f"Saved the plan to {flags.out}.", err=True)


def _write_comments(
    comment_dir: Path, result: Any, scope: Any, source_url: str | None, causes: Any
) -> None:
    # A partial plan says so at the top of part 1, where a reviewer starts.
    note = f"> {scope.describe()}\n\n" if scope is not None else ""
    parts = markdown_parts(result, source_url=source_url, limit=DEFAULT_LIMIT - len(note),
                           causes=causes)  # fmt: skip
    parts[0] = note + parts[0]
    written = write_comment_parts(comment_dir, parts)
    click.echo(f"Wrote the plan in {written} comment part(s) to {comment_dir}.", err=True)


def _print_plan(
    fmt: str,
    result: Any,
    scope: Any,
    source_url: str | None,
    as_json: Callable[[], Any],
    causes: Mapping[str, Cause] | None,
) -> None:
    """The plan on stdout, its diagnostics on stderr (but in JSON); a partial plan says so
    where the reader starts. `as_json`: the plan's JSON, made at most once per run."""
    if fmt == "json":  # the diagnostics are in the JSON
        announce(scope)
        click.echo(format_json(result, data=as_json()), nl=False)
        return
    if fmt == "markdown":  # the comment keeps them too: a reviewer reads them there
        if scope is not None:  # at the top of the comment, where a reviewer starts
            click.echo(f"> {scope.describe()}\n")
        click.echo(format_markdown(result, source_url=source_url, causes=causes), nl=False)
    else:
        if scope is not None:
            click.echo(f"{scope.describe()}\n")
        text = format_text(result, color=colour(sys.stdout), diagnostics=False, causes=causes)
        click.echo(text, nl=False)
    # Errors and warnings on stderr, which CI jobs keep when stdout is the plan's file.
    click.echo(format_diagnostics(result, color=colour(sys.stderr)), nl=False, err=True)
