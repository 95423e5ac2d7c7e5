"""The reports of a run over several environments that are per pull request or per CI
job: `--comment-dir` (the plans as pull-request comments), `--annotations` and
`--codequality` (the findings on the manifest lines). Each environment's part, annotation
and Code Quality entry names it; nothing of one environment's is mixed into another's.

`--comment-dir DIR` over several environments writes

    DIR/summary.md        the run summary (one row per environment): one comment
    DIR/ENV/1.md, 2.md    each environment's plan in parts of at most 60,000
                          characters, titled `reconciler plan: environment ENV`
                          (part i of n); an environment that could not be planned
                          has one part with its error

so that a CI step posts (and on the next run updates) one thread of comments per
environment, found by a marker naming it (docs/environments.md). Parts and environment
directories of an earlier run that this run has no use for are removed: the directory
always holds exactly this run's comments."""

from __future__ import annotations

import shutil
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import click

COMMENT_LIMIT = 60_000  # characters of one part (GitHub allows 65,536 in a comment)
SUMMARY_FILE = "summary.md"
_MOST_ERROR = 20_000  # characters of an environment's error shown in its comment


def write_fleet_comments(directory: Path, runs: list[Any], source_url: str | None) -> None:
    from reconciler.fleet.summary import summary_markdown
    from reconciler.masking import write_text
    from reconciler.render import markdown_parts
    from reconciler.run.outputs import write_comment_parts

    total = 0
    for run in runs:
        title = f"reconciler plan: environment {run.name}"
        if run.plan is not None:
            parts = markdown_parts(run.plan, title=title, source_url=source_url,
                                   limit=COMMENT_LIMIT, causes=run.causes)  # fmt: skip
        else:
            parts = [error_part(title, run.error or "not planned")]
        total += write_comment_parts(directory / run.name, parts)
    heading = f"## reconciler plan: {len(runs)} environment(s)\n\n"
    write_text(directory / SUMMARY_FILE, heading + summary_markdown(runs))
    _remove_stale(directory, {run.name for run in runs})
    click.echo(
        f"Wrote the plans of {len(runs)} environment(s) in {total} comment part(s) to "
        f"{directory} (one directory each, and {SUMMARY_FILE}).",
        err=True,
    )


def error_part(title: str, error: str) -> str:
    """An environment that could not be planned: its error, in a fence no line of it
    can close, cut to what a comment holds."""
    from reconciler.plans.text import shorten
    from reconciler.render.markdown_blocks import inline, longest_backtick_run

    text = shorten(error, _MOST_ERROR)
    fence = "`" * max(3, longest_backtick_run(text) + 1)
    said = "**Error:** this environment could not be planned."
    return f"## {inline(title)}\n\n{said}\n\n{fence}text\n{text}\n{fence}\n"


def _remove_stale(directory: Path, names: set[str]) -> None:
    """Numbered parts at the top (a one-environment run's) and the directories of
    environments this run did not plan, when they hold nothing but numbered parts."""
    for stale in directory.glob("*.md"):
        if stale.stem.isdigit():
            stale.unlink()
    for child in directory.iterdir():
        if child.is_dir() and not child.is_symlink() and child.name not in names:
            files = list(child.iterdir())
            if all(f.is_file() and f.suffix == ".md" and f.stem.isdigit() for f in files):
                shutil.rmtree(child)


def write_fleet_findings(
    annotations: str | None,
    codequality: Path | None,
    outcomes: Sequence[Any],
    where: dict[str, str],
) -> None:
    """The findings of every environment (validation problems and warnings, the plan's
    errors, warnings and notes, the brake, an environment's error) in one set of
    annotations and one Code Quality file, each naming its environment; those without a
    manifest line on the environment's line of the project file (`where`). An outcome is a
    `Prepared` (validate) or an `EnvironmentRun` (plan)."""
    from reconciler.report.files import write_findings
    from reconciler.report.findings import Finding, for_environment, from_plan, from_problems

    items: list[Finding] = []
    for outcome in outcomes:
        name = outcome.target.name if hasattr(outcome, "target") else outcome.name
        found = from_problems(outcome.problems, outcome.warnings)
        if outcome.error is not None and not outcome.problems:
            found.append(Finding("error", "reconciler failed", outcome.error))
        plan = getattr(outcome, "plan", None)
        if plan is not None:
            labelled = getattr(outcome, "plan_json", None)  # each change with its cause
            found += from_plan(labelled() if labelled is not None else plan.to_dict())
        items += for_environment(found, name, where[name])
    write_findings(annotations, codequality, (), items)
