"""`apply --env A --env B` (or a pattern): after every plan is shown and none has errors,
one confirmation naming every environment that changes; then each is applied in the
project's order with its own session (lock, fresh plan, brake, log), and the run stops at
the first environment that fails. A fresh plan that differs from the one shown is not
applied: what was confirmed is what runs."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import Any

import click

from reconciler.errors import ReconcilerError, UsageError


def apply_fleet(runs: list[Any], kwargs: dict[str, Any]) -> None:
    changing = [run for run in runs if run.plan is not None and run.plan.to_apply]
    if not changing:
        click.echo("No changes in any environment: nothing to apply.", err=True)
        return
    held = [run.name for run in changing if run.plan.brake and run.plan.brake.holds]
    if held and not kwargs.get("force"):
        raise UsageError(
            f"the safety brake holds for {', '.join(held)} (see each plan): nothing "
            "applied; review the plans, then add --force to apply them anyway"
        )
    if not _confirmed(changing, bool(kwargs.get("yes"))):
        raise UsageError("nothing applied")
    for position, run in enumerate(changing):
        click.echo(f"Applying environment {run.name}...", err=True)
        try:
            ok = _apply_one(run, kwargs)
        except ReconcilerError as exc:
            click.echo(f"Error: {run.name}: {exc}", err=True)
            ok = False
        if not ok:
            rest = [other.name for other in changing[position + 1 :]]
            left = f"; not attempted: {', '.join(rest)}" if rest else ""
            click.echo(f"Stopped at environment {run.name}{left}.", err=True)
            sys.exit(1)
    names = ", ".join(run.name for run in changing)
    click.echo(f"Applied {len(changing)} environment(s): {names}.", err=True)


def _confirmed(changing: list[Any], yes: bool) -> bool:
    if yes:
        return True
    if not sys.stdin.isatty():
        raise UsageError("there is no terminal to confirm on: add --yes to apply without asking")
    lines = ["", f"Do you want to apply these changes to {len(changing)} environment(s)?"]
    for run in changing:
        counts = ", ".join(f"{n} to {action}" for action, n in run.plan.summary.items() if n)
        urls = [s.url for s in (run.connection.helpdesk, run.connection.workspace) if s]
        lines.append(f"  {run.name}: {counts or 'asserted values only'}  {' '.join(urls)}")
    lines.append("  Only 'yes' will be accepted to approve.")
    click.echo("\n".join(lines), err=True)
    answer = click.prompt(
        "  Enter a value", default="", show_default=False, err=True, prompt_suffix=": "
    )
    return bool(answer.strip() == "yes")


def _apply_one(run: Any, kwargs: dict[str, Any]) -> bool:
    from reconciler.applying.log import default_path
    from reconciler.applying.session import ApplyOptions, ApplySession
    from reconciler.planning.plan import Selector
    from reconciler.terminal.console import print_report

    options = ApplyOptions(
        prune=bool(kwargs.get("prune")),
        targets=tuple(Selector.parse(t) for t in kwargs.get("targets", ())),
        excludes=tuple(Selector.parse(e) for e in kwargs.get("excludes", ())),
        force=bool(kwargs.get("force")),
    )
    log_path = _log_path(kwargs.get("log_file") or default_path(), run.name)
    shown = [change.to_dict() for change in run.plan.to_apply]

    def same_as_shown(fresh: Any) -> bool:
        if [change.to_dict() for change in fresh.to_apply] != shown:
            click.echo(
                f"Error: {run.name}: the plan changed since it was shown: not applied; plan again",
                err=True,
            )
            return False
        return True

    async def go() -> Any:
        session = ApplySession(
            run.desired,
            run.connection,
            options=options,
            log_path=log_path,
            lock_timeout=kwargs.get("lock_timeout", 0),
            parallelism=kwargs.get("parallelism", 10),
        )
        async with session:
            return await session.apply(confirm=same_as_shown)

    outcome = asyncio.run(go())
    if outcome.report is None:
        click.echo(f"{run.name}: nothing to apply any more.", err=True)
        return True
    print_report(outcome.report, log_path)
    return bool(outcome.report.ok)


def _log_path(path: Path, name: str) -> Path:
    return path.with_name(f"{path.stem}-{name}{path.suffix}")
