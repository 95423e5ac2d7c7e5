"""What the command line shows a person on stderr: the progress while reading and
applying (progress.py), the confirmation, and the apply report (pyinfra keeps these apart
from the engine too). Colour and animation only on a terminal; plain lines otherwise."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import click

from reconciler.applying.executor import ApplyReport
from reconciler.plans import Plan
from reconciler.plans.text import clean
from reconciler.render.values import plural
from reconciler.terminal.progress import OperationsProgress, ReadingProgress, Tracker

Progress = ReadingProgress  # what `plan` shows while it reads


def colour(stream: Any) -> bool:
    """Colour on a terminal, never with NO_COLOR."""
    return bool(stream.isatty()) and "NO_COLOR" not in os.environ


class ApplyReporter:
    """`ApplyProgress` for the terminal: the reading spinner, the plan on stdout, then
    the operations bar."""

    def __init__(
        self,
        *,
        color: bool,
        per_minute: int = 0,
        on_start: Callable[[], None] | None = None,
        on_end: Callable[[], None] | None = None,
    ) -> None:
        self.color = color
        self.per_minute = per_minute
        self.tracker = Tracker()  # calls and waits, reading and applying alike
        # Ended once the plan is shown; ending a display again does nothing.
        self._reading = ReadingProgress(self.tracker)
        self._bar: OperationsProgress | None = None
        # The CLI's signal handlers: armed only while operations are being sent.
        self._on_start = on_start
        self._on_end = on_end

    def __enter__(self) -> ApplyReporter:
        self._reading.__enter__()
        return self

    def read(self, kind: str) -> None:
        self._reading.read(kind)

    def planned(self, plan: Plan) -> None:
        from reconciler.render import format_diagnostics, format_text

        self._reading.__exit__()
        click.echo(format_text(plan, color=self.color, diagnostics=False), nl=False)
        click.echo(format_diagnostics(plan, color=colour(sys.stderr)), nl=False, err=True)

    def started(self, plan: Plan) -> None:
        from reconciler.applying.estimate import estimate, estimate_text

        found = estimate(plan, self.per_minute)
        click.echo(f"Applying: {estimate_text(found, self.per_minute)}", err=True)
        self._bar = OperationsProgress(plan.operation_count, per_minute=self.per_minute).__enter__()
        if self._on_start is not None:
            self._on_start()

    def operation_done(self) -> None:
        if self._bar is not None:
            self._bar.advance()

    def finished(self, report: ApplyReport) -> None:
        if self._on_end is not None:
            self._on_end()
        self.__exit__()

    def __exit__(self, *exc: object) -> None:
        self._reading.__exit__()
        if self._bar is not None:
            self._bar.__exit__()


def confirmation_text(plan: Plan, connection: Any) -> str:
    """What `apply` asks before writing: the services and how much of each changes."""
    from reconciler.applying.estimate import estimate, estimate_text

    per_minute = connection.rates.general if connection.helpdesk is not None else 0
    found = estimate(plan, per_minute)
    count = len(plan.changes)
    counts = ", ".join(f"{n} to {action}" for action, n in plan.summary.items() if n)
    lines = [
        "",
        f"Do you want to apply these {count} change{'s' if count != 1 else ''} ({counts})?",
    ]
    if getattr(connection, "environment", None):
        lines.append(f"  environment  {connection.environment}")
    for name, service, calls in (
        ("helpdesk", connection.helpdesk, found.helpdesk_calls),
        ("workspace", connection.workspace, found.workspace_calls),
    ):
        if service is not None:
            lines.append(f"  {name:<9}  {service.url}  ({calls:,} write call(s))")
    lines += [
        f"  {estimate_text(found, per_minute)}",
        "  Only 'yes' will be accepted to approve.",
    ]
    return "\n".join(lines)


def print_report(report: ApplyReport, log_path: Path) -> None:
    if report.ok:
        recovered = (
            f"; {report.recovered} lost create answer(s) found again by re-reading"
            if report.recovered
            else ""
        )
        click.echo(
            f"Apply complete: {len(report.done)} change(s), {report.operations_sent} "
            f"operation(s){recovered}. Log: {log_path}",
            err=True,
        )
        return
    if report.interrupted:
        lines = [
            "Apply interrupted: nothing new was started after the interrupt, and the "
            f"operations already sent finished ({report.operations_sent} sent in all)."
        ]
    elif report.log_error is not None:
        lines = [
            f"Apply stopped: {report.log_error}. Nothing new was started after it, and the "
            "operations already sent finished; the log ends at its last whole line."
        ]
    else:
        lines = ["Apply stopped at the first failure."]
    lines += [f"  failed: {address}: {message}" for address, message in report.failed]
    finished = [a for a in report.in_flight if a in report.done]
    for title, addresses in (
        ("done", report.done),
        ("in flight when interrupted, finished", finished),
        ("in flight, stopped partway (apply again to finish them)", report.partial),
        ("not attempted", report.not_attempted),
    ):
        if addresses:
            lines.append(f"  {title} ({len(addresses)}): {', '.join(addresses)}")
    lines.append(
        f"Log: {log_path}. Run `reconciler apply` again to continue: it plans afresh from "
        "the live state."
    )
    click.echo("\n".join(lines), err=True)


def print_stopped_at_once(log_path: Path) -> None:
    click.echo(
        "Apply stopped at once (second interrupt): the operations in flight were "
        f"abandoned, and their outcome is unknown. Log: {log_path}. Run `reconciler "
        "apply` again: it plans afresh from the live state, so nothing is done twice.",
        err=True,
    )


def refuse_partial_coverage(scope: Any, fail_on_unmanaged: bool) -> None:
    """`--fail-on-unmanaged` judges every entry against the live state: a partial plan
    (`--changed-since`) holds only some entries, so it cannot."""
    if fail_on_unmanaged and scope is not None and scope.partial:
        from reconciler.errors import UsageError

        raise UsageError(
            "--fail-on-unmanaged needs the full plan (every entry): leave out --changed-since"
        )


def unmanaged_failure(plan: Plan) -> bool:
    """With `--fail-on-unmanaged`: whether the plan fails on its unmanaged objects (exit
    1), saying so on stderr in one line per kind. Kinds not read in full are not judged."""
    found = plan.coverage
    if found is None or not found.unmanaged_count:
        return False
    click.echo(
        f"Error: {plural(found.unmanaged_count, 'unmanaged live object')} and "
        "--fail-on-unmanaged: add them to the manifests, or remove them in the service",
        err=True,
    )
    for kind, figures in found.kinds.items():
        if figures.unmanaged:
            shown = ", ".join(clean(key) for key in figures.unmanaged[:10])
            more = len(figures.unmanaged) - 10
            click.echo(f"  {kind}: {shown}" + (f" and {more:,} more" if more > 0 else ""), err=True)
    return True
