"""Several environments in one run (`--env '*'`, or `--report-file`): validate each; plan
them concurrently (reconciler/project/fleet.py), each plan printed whole in the project's
order, then one summary; apply them after one confirmation naming every environment, in
waves (cli/fleet_apply.py), stopping before the next wave when one fails."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

import click

from reconciler.cli.extras import refuse_sandbox
from reconciler.errors import UsageError

# Flags that make sense for one environment only, by command.
_SINGLE_ONLY = {
    "plan": {"out": "--out", "since": "--changed-since"},
    "apply": {"plan_file": "--plan", "since": "--changed-since"},
}


def run_fleet(
    command: str,
    project: Any,
    names: list[str],
    kwargs: dict[str, Any],
    max_parallel: int,
    report_file: Path | None,
) -> None:
    from reconciler.project import resolve

    _check_flags(command, kwargs)
    targets = [resolve(project, name) for name in names]
    for target in targets:  # every binding is checked before anything is sent anywhere
        target.guard(os.environ, kwargs.get("helpdesk_url"), kwargs.get("workspace_url"))
    request = _request(kwargs)
    if command == "export":  # the live state only: no manifests to load
        from reconciler.cli.fleet_export import export_fleet

        export_fleet(targets, kwargs, max_parallel, request)
        return
    from reconciler.project.fleet import prepare_all

    connect = command != "validate"  # validate is offline: no credentials needed
    prepared = prepare_all(targets, os.environ, request, connect=connect)
    where = {target.name: target.where for target in targets}
    if command == "validate":
        _findings(prepared, where, kwargs)
        _validate(prepared)
        return
    runs = _plan(prepared, request, kwargs.get("fmt", "text"), max_parallel, report_file, command)
    _findings(runs, where, kwargs)
    from reconciler.project.summary import exit_code

    code = exit_code(runs, detailed=bool(kwargs.get("detailed_exitcode")))
    if command == "plan":
        _write_reports(runs, kwargs)
        if kwargs.get("comment_dir") is not None:
            from reconciler.cli.fleet_reports import write_fleet_comments

            write_fleet_comments(kwargs["comment_dir"], runs, kwargs.get("source_url"))
    if command == "apply":
        if code == 1:
            click.echo("Error: nothing applied: an environment has errors.", err=True)
            sys.exit(1)
        from reconciler.cli.fleet_apply import apply_fleet
        from reconciler.project.waves import waves

        apply_fleet(runs, kwargs, waves(project, names), max_parallel, report_file)
        return
    if kwargs.get("fail_on_unmanaged"):
        from reconciler.terminal.console import unmanaged_failure

        if any(run.plan is not None and unmanaged_failure(run.plan) for run in runs):
            code = 1
    sys.exit(code)


def _check_flags(command: str, kwargs: dict[str, Any]) -> None:
    """What cannot run over several environments is refused, and the comment directory
    checked, before anything is read or sent: fail fast."""
    refuse_sandbox(kwargs)
    for name, flag in _SINGLE_ONLY.get(command, {}).items():
        if kwargs.get(name):
            raise UsageError(f"{flag} works with one environment: give one --env NAME")
    if kwargs.get("comment_dir") is not None:
        from reconciler.cli.extras import check_writable

        check_writable("--comment-dir", kwargs["comment_dir"], directory=True)


def _findings(outcomes: list[Any], where: dict[str, str], kwargs: dict[str, Any]) -> None:
    """--annotations and --codequality over every environment (validate and plan)."""
    from reconciler.report.annotations import GITHUB, platform_from

    if "annotations" not in kwargs:  # apply has neither option
        return
    codequality = kwargs.get("codequality")
    if platform_from(kwargs.get("annotations")) == GITHUB or codequality is not None:
        from reconciler.cli.fleet_reports import write_fleet_findings

        write_fleet_findings(kwargs.get("annotations"), codequality, outcomes, where)


def _write_reports(runs: list[Any], kwargs: dict[str, Any]) -> None:
    """--html, --junit and the job summary over every environment of the run, in the
    project's order; an environment that could not be planned is there with its error.
    Without any of them, no plan is turned into its document (a fleet's plans, for
    nothing: about 5 % of a 20-tenant plan's CPU)."""
    files = ("html_file", "junit_file", "job_summary_file")
    if all(kwargs.get(name) is None for name in files):
        return
    from reconciler.cli.reports import write_reports
    from reconciler.report.digest import Planned

    plans = [
        Planned(
            run.plan.to_dict()
            if run.plan is not None
            else {"changes": [], "errors": [{"severity": "error", "message": run.error}]},
            run.name,
        )
        for run in runs
    ]
    write_reports(
        plans,
        kwargs.get("html_file"),
        kwargs.get("junit_file"),
        kwargs.get("job_summary_file"),
        kwargs.get("source_url"),
        None,
    )


def _request(kwargs: dict[str, Any]) -> Any:
    from reconciler.clients.connection import RateSettings, Timeouts
    from reconciler.plans.addresses import Selector
    from reconciler.project.fleet import PlanRequest

    return PlanRequest(
        prune=bool(kwargs.get("prune")),
        targets=tuple(Selector.parse(t) for t in kwargs.get("targets", ())),
        excludes=tuple(Selector.parse(e) for e in kwargs.get("excludes", ())),
        rates=RateSettings(kwargs.get("rate_limit", 90), kwargs.get("search_rate_limit", 60)),
        timeouts=Timeouts(kwargs["timeout"]) if kwargs.get("timeout") else Timeouts(),
    )


def _validate(prepared: list[Any]) -> None:
    failed = 0
    for item in prepared:
        if item.error is not None:
            failed += 1
            click.echo(f"{item.target.name}: invalid:\n{_indent(item.error)}", err=True)
            continue
        for message in item.warnings:
            click.echo(f"{item.target.name}: Warning: {message}", err=True)
        desired = item.desired
        count = sum(len(desired.entries(kind)) for kind in desired.kinds_used)
        click.echo(f"{item.target.name}: valid: {count} objects in {len(desired.files)} file(s).",
                   err=True)  # fmt: skip
    if failed:
        click.echo(f"Error: {failed} of {len(prepared)} environment(s) invalid.", err=True)
        sys.exit(1)


def _plan(
    prepared: list[Any],
    request: Any,
    fmt: str,
    max_parallel: int,
    report_file: Path | None,
    command: str,
) -> list[Any]:
    from reconciler.project.fleet import plan_environments, run_to_end
    from reconciler.project.summary import report_json, summary_markdown, summary_text

    done: list[Any] = []

    def show(run: Any) -> None:
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


def _print_run(run: Any, fmt: str) -> None:
    """One environment's plan, whole (warnings on stderr just before it)."""
    from reconciler.render import format_markdown, format_text
    from reconciler.terminal.console import colour

    for message in run.warnings:
        click.echo(f"Warning: {run.name}: {message}", err=True)
    sys.stderr.flush()
    if fmt == "markdown":
        title = f"reconciler plan: environment {run.name}"
        if run.plan is not None:
            body = format_markdown(run.plan, title=title)
        else:
            from reconciler.cli.fleet_reports import error_part

            body = error_part(title, run.error or "not planned")
        click.echo(body)
        return
    rule = "=" * max(0, 60 - len(run.name))
    click.echo(f"=== Environment {run.name} {rule}")
    if run.plan is not None:
        click.echo(format_text(run.plan, color=colour(sys.stdout)))
    else:
        click.echo(f"Error: {run.error}\n")
    sys.stdout.flush()


def _fleet_json(runs: list[Any]) -> str:
    from reconciler.project.summary import row

    document = {
        "environments": [
            {
                "environment": run.name,
                "plan": None if run.plan is None else run.plan.to_dict(),
                "error": run.error,
                "summary": row(run),
            }
            for run in runs
        ]
    }
    return json.dumps(document, indent=2, ensure_ascii=False, allow_nan=False) + "\n"


def _print_interrupted(done: list[Any], prepared: list[Any]) -> None:
    from reconciler.project.summary import summary_text

    finished = {run.name for run in done}
    left = [item.target.name for item in prepared if item.target.name not in finished]
    if done:
        click.echo(summary_text(done), nl=False, err=True)
    click.echo(f"Interrupted: not finished: {', '.join(left) or '(none)'}.", err=True)


def _indent(text: str) -> str:
    return "\n".join(f"  {line}" for line in text.splitlines())
