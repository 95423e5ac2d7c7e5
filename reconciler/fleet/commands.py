"""Several environments in one run (`--env '*'`, or `--report-file`): validate each; plan
them concurrently (fleet/plans.py), each plan printed whole in the project's order, then
one summary; apply them after one confirmation naming every environment, in waves
(fleet/apply.py), stopping before the next wave when one fails; export each to its own
directory (fleet/export.py)."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Sequence
from pathlib import Path

import click

from reconciler.errors import UsageError
from reconciler.fleet.plans import EnvironmentRun, PlanRequest, Prepared
from reconciler.fleet.summary import exit_code, report_json, row, summary_markdown, summary_text
from reconciler.project import Project, Target
from reconciler.run.flags import (
    ApplyFlags,
    Environments,
    ExportFlags,
    Flags,
    PlanFlags,
    ReportFlags,
    ValidateFlags,
    bound_urls,
)


def run_fleet(project: Project, names: list[str], flags: Flags, chosen: Environments) -> None:
    from reconciler.project import resolve

    _check_flags(flags)
    targets = [resolve(project, name) for name in names]
    for target in targets:  # every binding is checked before anything is sent anywhere
        target.guard(os.environ, *bound_urls(flags))
    request = _request(flags)
    if isinstance(flags, ExportFlags):  # the live state only: no manifests to load
        from reconciler.fleet.export import export_fleet

        export_fleet(targets, flags, chosen.max_parallel, request)
        return
    from reconciler.fleet.plans import prepare_all

    # validate is offline: no credentials needed
    prepared = prepare_all(
        targets, os.environ, request, connect=not isinstance(flags, ValidateFlags)
    )
    where = {target.name: target.where for target in targets}
    if isinstance(flags, ValidateFlags):
        _findings(prepared, where, flags.reports)
        _validate(prepared)
        return
    fmt = flags.fmt if isinstance(flags, PlanFlags) else "text"
    command = "plan" if isinstance(flags, PlanFlags) else "apply"
    runs = _plan(prepared, request, fmt, chosen.max_parallel, chosen.report_file, command)
    if isinstance(flags, ApplyFlags):
        _apply(project, targets, runs, flags, chosen)
        return
    _findings(runs, where, flags.reports)
    _plan_outputs(runs, flags)


def _apply(
    project: Project,
    targets: list[Target],
    runs: list[EnvironmentRun],
    flags: ApplyFlags,
    chosen: Environments,
) -> None:
    from reconciler.fleet.apply import apply_fleet
    from reconciler.fleet.rollout import waves

    if exit_code(runs, detailed=False) == 1:
        click.echo("Error: nothing applied: an environment has errors.", err=True)
        sys.exit(1)
    planned = waves(project, [target.name for target in targets])
    apply_fleet(runs, flags, planned, chosen.max_parallel, chosen.report_file,
                {target.name: target for target in targets})  # fmt: skip


def _plan_outputs(runs: list[EnvironmentRun], flags: PlanFlags) -> None:
    """The reports and comments of a plan over several environments, then its exit code."""
    code = exit_code(runs, detailed=flags.detailed_exitcode, fail_on=flags.fail_on)
    _write_reports(runs, flags.reports)
    if flags.reports.comment_dir is not None:
        from reconciler.fleet.reports import write_fleet_comments

        write_fleet_comments(flags.reports.comment_dir, runs, flags.reports.source_url)
    if flags.fail_on_unmanaged:
        from reconciler.terminal.console import unmanaged_failure

        if any(run.plan is not None and unmanaged_failure(run.plan) for run in runs):
            code = 1
    sys.exit(code)


def _check_flags(flags: Flags) -> None:
    """What cannot run over several environments is refused, and the comment directory
    checked, before anything is read or sent: fail fast."""
    single_only: tuple[tuple[object, str], ...] = ()
    if isinstance(flags, PlanFlags):
        single_only = ((flags.out, "--out"), (flags.since, "--changed-since"))
    elif isinstance(flags, ApplyFlags):
        single_only = ((flags.plan_file, "--plan"), (flags.since, "--changed-since"))
    for given, flag in single_only:
        if given:
            raise UsageError(f"{flag} works with one environment: give one --env NAME")
    if isinstance(flags, PlanFlags) and flags.reports.comment_dir is not None:
        from reconciler.run.outputs import check_writable

        check_writable("--comment-dir", flags.reports.comment_dir, directory=True)


def _findings(
    outcomes: Sequence[Prepared | EnvironmentRun], where: dict[str, str], reports: ReportFlags
) -> None:
    """--annotations and --codequality over every environment (validate and plan)."""
    from reconciler.report.annotations import GITHUB, platform_from

    if platform_from(reports.annotations) == GITHUB or reports.codequality is not None:
        from reconciler.fleet.reports import write_fleet_findings

        write_fleet_findings(reports.annotations, reports.codequality, outcomes, where)


def _write_reports(runs: list[EnvironmentRun], reports: ReportFlags) -> None:
    """--html, --junit and the job summary over every environment of the run, in the
    project's order; an environment that could not be planned is there with its error.
    Without any of them, no plan is turned into its document (a fleet's plans, for
    nothing: about 5 % of a 20-tenant plan's CPU)."""
    files = (reports.html_file, reports.junit_file, reports.job_summary_file)
    if all(file is None for file in files):
        return
    from reconciler.report.digest import Planned
    from reconciler.report.files import write_reports

    plans = [
        Planned(
            run.plan_json() or {}
            if run.plan is not None
            else {"changes": [], "errors": [{"severity": "error", "message": run.error}]},
            run.name,
        )
        for run in runs
    ]
    write_reports(plans, *files, reports.source_url, None)


def _request(flags: Flags) -> PlanRequest:
    from reconciler.clients.connection import RateSettings, Timeouts
    from reconciler.plans.addresses import Selector

    if isinstance(flags, ValidateFlags):
        return PlanRequest()
    selectors = (flags.targets, flags.excludes)
    targets, excludes = (tuple(Selector.parse(t) for t in given) for given in selectors)
    return PlanRequest(
        prune=not isinstance(flags, ExportFlags) and flags.prune,
        targets=targets,
        excludes=excludes,
        rates=RateSettings(*flags.connection.rates),
        timeouts=Timeouts(flags.connection.timeout),
        allow_http=flags.connection.allow_http,
        ca_file=flags.connection.ca_file,
        label=isinstance(flags, PlanFlags),
    )


def _validate(prepared: list[Prepared]) -> None:
    failed = 0
    for item in prepared:
        if item.error is not None:
            failed += 1
            click.echo(f"{item.target.name}: invalid:\n{_indent(item.error)}", err=True)
            continue
        for message in item.warnings:
            click.echo(f"{item.target.name}: Warning: {message}", err=True)
        desired = item.desired
        assert desired is not None  # loaded, as there is no error
        count = sum(len(desired.entries(kind)) for kind in desired.kinds_used)
        click.echo(f"{item.target.name}: valid: {count} objects in {len(desired.files)} file(s).",
                   err=True)  # fmt: skip
    if failed:
        click.echo(f"Error: {failed} of {len(prepared)} environment(s) invalid.", err=True)
        sys.exit(1)


def _plan(
    prepared: list[Prepared],
    request: PlanRequest,
    fmt: str,
    max_parallel: int,
    report_file: Path | None,
    command: str,
) -> list[EnvironmentRun]:
    from reconciler.fleet.plans import plan_environments, run_to_end

    done: list[EnvironmentRun] = []

    def show(run: EnvironmentRun) -> None:
        done.append(run)
        if fmt != "json":
            _print_run(run, fmt)

    click.echo(f"Planning {len(prepared)} environment(s)...", err=True)
    try:
        run_to_end(plan_environments(prepared, request, max_parallel=max_parallel, on_done=show))
    except KeyboardInterrupt:
        _print_interrupted(done, prepared)
        raise
    if fmt == "json":
        click.echo(_fleet_json(done), nl=False)
    elif fmt == "markdown":
        click.echo(summary_markdown(done), nl=False)
    else:
        click.echo(summary_text(done), nl=False)
    if report_file is not None:
        from reconciler.masking import write_text

        write_text(report_file, report_json(done, command))
        click.echo(f"Wrote the run summary to {report_file}.", err=True)
    return done


def _print_run(run: EnvironmentRun, fmt: str) -> None:
    """One environment's plan, whole (warnings on stderr just before it)."""
    from reconciler.render import format_markdown, format_text
    from reconciler.terminal.console import colour

    for message in run.warnings:
        click.echo(f"Warning: {run.name}: {message}", err=True)
    sys.stderr.flush()
    if fmt == "markdown":
        title = f"reconciler plan: environment {run.name}"
        if run.plan is not None:
            body = format_markdown(run.plan, title=title, causes=run.causes)
        else:
            from reconciler.fleet.reports import error_part

            body = error_part(title, run.error or "not planned")
        click.echo(body)
        return
    rule = "=" * max(0, 60 - len(run.name))
    click.echo(f"=== Environment {run.name} {rule}")
    if run.plan is not None:
        click.echo(format_text(run.plan, color=colour(sys.stdout), causes=run.causes))
    else:
        click.echo(f"Error: {run.error}\n")
    sys.stdout.flush()


def _fleet_json(runs: list[EnvironmentRun]) -> str:
    document = {
        "environments": [
            {
                "environment": run.name,
                "plan": run.plan_json(),
                "error": run.error,
                "summary": row(run),
            }
            for run in runs
        ]
    }
    return json.dumps(document, indent=2, ensure_ascii=False, allow_nan=False) + "\n"


def _print_interrupted(done: list[EnvironmentRun], prepared: list[Prepared]) -> None:
    finished = {run.name for run in done}
    left = [item.target.name for item in prepared if item.target.name not in finished]
    if done:
        click.echo(summary_text(done), nl=False, err=True)
    click.echo(f"Interrupted: not finished: {', '.join(left) or '(none)'}.", err=True)


def _indent(text: str) -> str:
    return "\n".join(f"  {line}" for line in text.splitlines())
