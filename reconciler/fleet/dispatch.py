"""Which environments a command runs for (`--env NAME`, repeatable, shell-style patterns;
docs/environments.md): none (the flags and variables alone, no project file read), one
(the command as it would run with the environment's manifest paths, var files, URLs and
credentials given by hand, after the wrong-tenant guard), or several, or one with
`--report-file` (the fleet: fleet/commands.py plans them concurrently and prints a
summary)."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

import click

from reconciler.errors import UsageError
from reconciler.run.flags import (
    ApplyFlags,
    Environments,
    ExportFlags,
    Flags,
    PlanFlags,
    ValidateFlags,
    bound_urls,
)

if TYPE_CHECKING:
    from reconciler.project import Target


def run_command(flags: Flags, chosen: Environments) -> None:
    """The command `flags` asks for, for the environments `chosen` selects."""
    paths = None if isinstance(flags, ExportFlags) else flags.paths  # export takes none
    if not chosen.envs:
        if chosen.report_file is not None:
            raise UsageError("--report-file goes with --env")
        if paths is not None and not paths:
            raise UsageError("Missing argument 'PATHS...' (or --env NAME, from reconciler.yaml)")
        _run_one(flags, None)
        return
    from reconciler.project import locate_project, resolve, select

    project = locate_project(chosen.project_file)
    names = select(project, chosen.envs)
    if isinstance(flags, ValidateFlags):
        from reconciler.project.load import refuse, shared_helpdesk_problems

        refuse(project, shared_helpdesk_problems(project))
    if paths:
        raise UsageError(
            f"give manifest PATHS or --env, not both: the paths of an environment "
            f"are those {project.path} gives it"
        )
    refuse_sandbox(flags)
    if len(names) == 1 and chosen.report_file is None:
        target = resolve(project, names[0])
        target.guard(os.environ, *bound_urls(flags))  # the wrong-tenant guard
        _announce(target, flags)
        _run_one(flags.for_target(target), target)
        return
    from reconciler.fleet.commands import run_fleet

    run_fleet(project, names, flags, chosen)


def refuse_sandbox(flags: Flags) -> None:
    """`--env` names its URLs: the embedded sandbox (`--sandbox`) contradicts it."""
    if not isinstance(flags, ValidateFlags) and flags.connection.sandbox is not None:
        raise UsageError("--sandbox and --env contradict each other: an environment names its URLs")


def _run_one(flags: Flags, target: Target | None) -> None:
    if isinstance(flags, PlanFlags):
        from reconciler.run.plan import run_plan

        run_plan(flags, target)
    elif isinstance(flags, ApplyFlags):
        from reconciler.run.apply import run_apply

        run_apply(flags, target)
    elif isinstance(flags, ExportFlags):
        from reconciler.run.export import run_export

        run_export(flags, target)
    else:
        from reconciler.run.inputs import run_validate

        run_validate(flags, target)


def _announce(target: Target, flags: Flags) -> None:
    """The plan's header names the environment; elsewhere a line on stderr does."""
    where = ", ".join(
        f"{name} {url}"
        for name, url in (("helpdesk", target.helpdesk_url), ("workspace", target.workspace_url))
        if url
    )
    line = f"Environment: {target.name}" + (f" ({where})" if where else "")
    fmt = flags.fmt if isinstance(flags, PlanFlags) else None
    if fmt == "text":
        click.echo(f"{line}\n")
    elif fmt == "markdown":
        click.echo(f"> **Environment:** `{target.name}`" + (f" ({where})" if where else "") + "\n")
    else:
        click.echo(line, err=True)
