"""`reconciler drift-issue`: keep one issue labelled `drift` per environment in step with
the latest drift check's plan (report/drift.py decides, report/tracker.py reads the plan
and calls the platform's API)."""

from __future__ import annotations

import os
from pathlib import Path

import click


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
    from reconciler.report.tracker import sync_drift_issue

    done = sync_drift_issue(plan_file, os.environ, platform, environment, run_url)
    click.echo(done, err=True)
