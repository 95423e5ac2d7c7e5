"""`reconciler drift-issue`: keep one issue labelled `drift` per environment in step with
the latest drift check's plan (report/drift.py decides, report/tracker.py calls the
platform's API)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import click

from reconciler.errors import UsageError


@click.command("drift-issue")
@click.argument("plan_file", type=click.Path(dir_okay=False, path_type=Path))
@click.option(
    "--platform",
    type=click.Choice(["github", "gitlab"]),
    default=None,
    help="Where the issue lives (default: the CI this runs in, from GITHUB_ACTIONS / GITLAB_CI).",
)
@click.option(
    "--environment",
    metavar="NAME",
    help="The environment planned: its own issue, NAME in the title and an environment:NAME label.",
)
@click.option("--run-url", metavar="URL", help="A link to this run, in the issue (default: "
              "the GitHub run or GitLab pipeline, from their variables).")  # fmt: skip
def drift_issue(
    plan_file: Path, platform: str | None, environment: str | None, run_url: str | None
) -> None:
    """Open, update or close the drift issue from PLAN_FILE (`plan --out` or
    `plan --format json`): opened when the plan has changes, updated while they last,
    closed with a comment when the plan is clean. A plan with errors exits 1 and leaves
    the issue alone: that run is a failed job, not drift."""
    from reconciler.report.annotations import default_platform
    from reconciler.report.digest import Planned
    from reconciler.report.drift import LABEL, decide
    from reconciler.report.tracker import carry_out, labels_for, tracker_from

    plan = _read(plan_file)
    named = plan.get("environment")
    planned = Planned(plan, environment or (named if isinstance(named, str) else None))
    chosen = platform or default_platform(os.environ)
    where = [f"[this run]({url})" for url in [run_url or _run_url(os.environ)] if url]
    tracker, client = tracker_from(chosen, os.environ)
    with client:
        decision = decide(planned, tracker.open_issues(LABEL), where)
        click.echo(carry_out(tracker, decision, labels_for(planned.environment)), err=True)


def _read(path: Path) -> dict[str, object]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as err:
        raise UsageError(f"{path}: cannot read the plan's JSON ({err})") from None
    if not isinstance(data, dict) or "changes" not in data:
        raise UsageError(f"{path}: not a plan (no `changes`): give plan --out or --format json")
    return data


def _run_url(env: dict[str, str] | os._Environ[str]) -> str | None:
    if env.get("GITHUB_RUN_ID") and env.get("GITHUB_REPOSITORY"):
        server = env.get("GITHUB_SERVER_URL") or "https://github.com"
        return f"{server}/{env['GITHUB_REPOSITORY']}/actions/runs/{env['GITHUB_RUN_ID']}"
    return env.get("CI_PIPELINE_URL") or None
