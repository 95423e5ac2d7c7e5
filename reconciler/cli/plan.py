"""`reconciler plan`: read the live state and print the plan; writes nothing."""

from __future__ import annotations

import asyncio
import functools
import sys
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import click

from reconciler.cli.changed import announce, changed_since_option, narrowed
from reconciler.cli.environments import saved_environment, with_environments
from reconciler.cli.extras import write_comment_parts
from reconciler.cli.interrupts import sigterm_as_interrupt
from reconciler.cli.options import (
    connection_options,
    load_manifests,
    manifest_paths,
    open_connection,
    var_files,
)
from reconciler.cli.reports import plan_report_options, reported, write_plan_reports
from reconciler.terminal.console import Progress, colour, refuse_partial_coverage, unmanaged_failure


@click.command()
@with_environments("plan")
@manifest_paths
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["text", "json", "markdown"]),
    default="text",
    show_default=True,
    help="How the plan is printed on stdout.",
)
@click.option(
    "--out",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Also save the plan, with what it was made from, for `apply --plan`.",
)
@click.option(
    "--comment-dir",
    type=click.Path(file_okay=False, path_type=Path),
    help="Also write the plan as Markdown comments DIR/1.md, DIR/2.md, ... of at most "
    "60,000 characters each, part 1 with the summary (whatever --format says).",
)
@click.option(
    "--source-url",
    metavar="BASE",
    help="In the Markdown, link each change to its manifest line: BASE/FILE#LLINE "
    "(e.g. https://github.com/ORG/REPO/blob/COMMIT).",
)
@click.option("--detailed-exitcode", is_flag=True, help="Exit 2 when there are changes.")
@click.option(
    "--fail-on-unmanaged",
    is_flag=True,
    help="Exit 1 when a kind the manifests manage, read in full, has live objects no "
    "entry names (the plan lists them; kinds not read in full are not judged).",
)
@click.option("--prune", is_flag=True, help="Remove live objects missing from the manifests.")
@click.option(
    "--target",
    "targets",
    multiple=True,
    metavar="KIND[/KEY]",
    help="Only these objects (and what they need); repeatable.",
)
@click.option(
    "--exclude",
    "excludes",
    multiple=True,
    metavar="KIND[/KEY]",
    help="Leave these objects (and what needs them) out; repeatable.",
)
@changed_since_option
@var_files
@plan_report_options
@connection_options
def plan(
    paths: tuple[Path, ...],
    var_files: tuple[Path, ...],
    fmt: str,
    out: Path | None,
    comment_dir: Path | None,
    source_url: str | None,
    detailed_exitcode: bool,
    fail_on_unmanaged: bool,
    prune: bool,
    targets: tuple[str, ...],
    excludes: tuple[str, ...],
    since: str | None,
    annotations: str | None,
    codequality: Path | None,
    html_file: Path | None,
    junit_file: Path | None,
    job_summary_file: str | None,
    **connection: Any,
) -> None:
    """Read the live state and print the plan; writes nothing to any API."""
    from reconciler.plans.addresses import selections
    from reconciler.run.workflow import read_and_plan

    selected, left_out = selections(targets, excludes)
    _check_outputs(out, comment_dir)
    with reported(annotations, codequality, paths) as findings:
        validated = load_manifests(paths, var_files)
        findings.problems(warnings=validated.warnings)
        desired, scope = narrowed(validated.desired, paths, var_files, since, prune)
        refuse_partial_coverage(scope, fail_on_unmanaged)
        with sigterm_as_interrupt(), open_connection(**connection) as conn, Progress() as progress:
            outcome = asyncio.run(
                read_and_plan(
                    desired,
                    conn,
                    prune=prune,
                    targets=selected,
                    excludes=left_out,
                    on_read=progress.read,
                )
            )
        result = outcome.plan
        if scope is not None:  # a partial plan's desired state is not every entry: no coverage
            coverage = None if scope.partial else result.coverage
            result = replace(result, scope=scope.to_dict(), coverage=coverage)
        as_json = functools.cache(result.to_dict)  # for the findings and the reports, once
        findings.plan(as_json)
    if out is not None:
        _save(out, result, validated.desired, prune, targets, excludes, var_files)
    if comment_dir is not None:
        _write_comments(comment_dir, result, scope, source_url)
    write_plan_reports(as_json, html_file, junit_file, job_summary_file, source_url, out)
    _print_plan(fmt, result, scope, source_url, as_json)
    if result.errors or (fail_on_unmanaged and unmanaged_failure(result)):
        sys.exit(1)
    if detailed_exitcode and result.has_changes:
        sys.exit(2)


def _check_outputs(out: Path | None, comment_dir: Path | None) -> None:
    """The files the plan is saved to are checked before any call: fail fast."""
    from reconciler.cli.extras import check_writable

    if out is not None:
        check_writable("--out", out)
    if comment_dir is not None:
        check_writable("--comment-dir", comment_dir, directory=True)


def _save(
    out: Path,
    result: Any,
    desired: Any,
    prune: bool,
    targets: tuple[str, ...],
    excludes: tuple[str, ...],
    var_files: tuple[Path, ...],
) -> None:
    from reconciler.errors import UsageError
    from reconciler.plans.planfile import PlanInputs, VarFile, manifests_digest, write_plan_file

    recorded = [VarFile.of(path) for path in var_files]  # read a moment ago
    if None in recorded:
        raise UsageError(f"--var-file: {var_files[recorded.index(None)]} can no longer be read")
    files = tuple(v for v in recorded if v is not None)
    inputs = PlanInputs(
        manifests_digest(desired), prune, targets, excludes, files, environment=saved_environment()
    )
    write_plan_file(out, result, inputs)
    click.echo(f"Saved the plan to {out}.", err=True)


def _write_comments(comment_dir: Path, result: Any, scope: Any, source_url: str | None) -> None:
    from reconciler.render import markdown_parts
    from reconciler.render.markdown import DEFAULT_LIMIT

    # A partial plan says so at the top of part 1, where a reviewer starts.
    note = f"> {scope.describe()}\n\n" if scope is not None else ""
    parts = markdown_parts(result, source_url=source_url, limit=DEFAULT_LIMIT - len(note))
    parts[0] = note + parts[0]
    written = write_comment_parts(comment_dir, parts)
    click.echo(f"Wrote the plan in {written} comment part(s) to {comment_dir}.", err=True)


def _print_plan(
    fmt: str, result: Any, scope: Any, source_url: str | None, as_json: Callable[[], Any]
) -> None:
    """The plan on stdout, its diagnostics on stderr (but in JSON); a partial plan says so
    where the reader starts. `as_json`: the plan's JSON, made at most once per run."""
    from reconciler.render import format_diagnostics, format_json, format_markdown, format_text

    if fmt == "json":  # the diagnostics are in the JSON
        announce(scope)
        click.echo(format_json(result, data=as_json()), nl=False)
        return
    if fmt == "markdown":  # the comment keeps them too: a reviewer reads them there
        if scope is not None:  # at the top of the comment, where a reviewer starts
            click.echo(f"> {scope.describe()}\n")
        click.echo(format_markdown(result, source_url=source_url), nl=False)
    else:
        if scope is not None:
            click.echo(f"{scope.describe()}\n")
        click.echo(format_text(result, color=colour(sys.stdout), diagnostics=False), nl=False)
    # Errors and warnings on stderr, which CI jobs keep when stdout is the plan's file.
    click.echo(format_diagnostics(result, color=colour(sys.stderr)), nl=False, err=True)
