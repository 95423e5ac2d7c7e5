"""`--env NAME` (repeatable, shell-style patterns) on validate, plan, apply and export,
and `reconciler environments` (the list, for a CI matrix). The environments are those of
the project file, `reconciler.yaml` (reconciler/project/, docs/environments.md).

One environment: the command runs as it would with the environment's manifest paths, var
files, URLs and credentials given by hand, after the wrong-tenant guard; the environment
rides on the click context (`current_target()`), where `options.py` reads it. Several (or
`--report-file`): cli/fleet.py plans them concurrently and prints a summary. Without
`--env` nothing changes and no project file is read."""

from __future__ import annotations

import functools
import json
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import click

from reconciler.cli.extras import refuse_sandbox
from reconciler.errors import UsageError

_META_KEY = "reconciler.environment"

env_option = click.option(
    "--env",
    "envs",
    multiple=True,
    metavar="NAME|PATTERN",
    help="Run for this environment of reconciler.yaml (its paths, var files, URLs and "
    "credentials); repeatable; shell-style patterns ('*' for all).",
)
project_option = click.option(
    "--project",
    "project_file",
    type=click.Path(dir_okay=False, path_type=Path),
    help="The project file (default: reconciler.yaml here or in a directory above).",
)


def current_target() -> Any:
    """The environment this command runs for (a `project.Target`), or None."""
    context = click.get_current_context(silent=True)
    return None if context is None else context.find_root().meta.get(_META_KEY)


def with_environments(command: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Adds --env and --project (and, for plan and apply, --max-parallel and
    --report-file; for export, --max-parallel) to `command`, and runs it for the
    environments selected."""

    def decorate(func: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(func)
        def wrapper(
            *args: Any,
            envs: tuple[str, ...],
            project_file: Path | None,
            max_parallel: int = 0,
            report_file: Path | None = None,
            **kwargs: Any,
        ) -> Any:
            if not envs:
                if report_file is not None:
                    raise UsageError("--report-file goes with --env")
                if "paths" in kwargs and not kwargs["paths"]:
                    raise UsageError(
                        "Missing argument 'PATHS...' (or --env NAME, from reconciler.yaml)"
                    )
                return func(*args, **kwargs)
            from reconciler.project import locate_project, resolve, select

            project = locate_project(project_file)
            names = select(project, envs)
            if kwargs.get("paths"):
                raise UsageError(
                    f"give manifest PATHS or --env, not both: the paths of an environment "
                    f"are those {project.path} gives it"
                )
            if len(names) == 1 and report_file is None:
                _bind(resolve(project, names[0]), command, kwargs)
                return func(*args, **kwargs)
            from reconciler.cli.fleet import run_fleet

            return run_fleet(command, project, names, kwargs, max_parallel, report_file)

        options = [env_option, project_option]
        if command in ("plan", "apply"):
            options += _FLEET_OPTIONS
        elif command == "export":
            options.append(_FLEET_OPTIONS[0])  # --max-parallel
        for option in reversed(options):
            wrapper = option(wrapper)
        return wrapper

    return decorate


_FLEET_OPTIONS = [
    click.option(
        "--max-parallel",
        type=click.IntRange(min=0),
        default=32,
        show_default=True,
        help="With several environments: how many are planned (exported; in one apply "
        "wave, applied) at once (0: all).",
    ),
    click.option(
        "--report-file",
        type=click.Path(dir_okay=False, path_type=Path),
        help="With --env: also write the run summary of the environments as JSON.",
    ),
]


def _bind(target: Any, command: str, kwargs: dict[str, Any]) -> None:
    """Run the command for `target`: the guard first, then its paths and settings."""
    refuse_sandbox(kwargs)
    target.guard(os.environ, kwargs.get("helpdesk_url"), kwargs.get("workspace_url"))
    context = click.get_current_context()
    context.find_root().meta[_META_KEY] = target
    if "paths" in kwargs:
        kwargs["paths"] = target.paths
    if "var_files" in kwargs:
        kwargs["var_files"] = (*target.var_files, *kwargs["var_files"])
    for name in ("rate_limit", "search_rate_limit"):
        given = context.get_parameter_source(name) not in (None, click.core.ParameterSource.DEFAULT)
        if name in kwargs and not given and getattr(target, name) is not None:
            kwargs[name] = getattr(target, name)
    _announce(target, command, kwargs.get("fmt", "text"))


def _announce(target: Any, command: str, fmt: str) -> None:
    """The plan's header names the environment; elsewhere a line on stderr does."""
    where = ", ".join(
        f"{name} {url}"
        for name, url in (("helpdesk", target.helpdesk_url), ("workspace", target.workspace_url))
        if url
    )
    line = f"Environment: {target.name}" + (f" ({where})" if where else "")
    if command == "plan" and fmt == "text":
        click.echo(f"{line}\n")
    elif command == "plan" and fmt == "markdown":
        click.echo(f"> **Environment:** `{target.name}`" + (f" ({where})" if where else "") + "\n")
    else:
        click.echo(line, err=True)


def saved_environment() -> str | None:
    """The environment a plan saved now records (`plan --out`)."""
    target = current_target()
    return None if target is None else str(target.name)


def refuse_other_environment(saved: Any) -> None:
    """A saved plan is applied only for the environment it was made for."""
    recorded = saved.inputs.environment
    running = saved_environment()
    if recorded != running:
        made = f"environment {recorded}" if recorded else "no environment"
        now = f"--env {running}" if running else "no --env"
        raise UsageError(
            f"the saved plan was made for {made}, and this apply runs with {now}: "
            "apply it for the environment it was made for, or plan again"
        )


@click.command("environments")
@project_option
@click.option("--env", "envs", multiple=True, metavar="PATTERN", help="Only these (default: all).")
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["text", "json"]),
    default="text",
    show_default=True,
    help="json: a list for a CI matrix (name, paths, var_files, URLs, credential variables).",
)
@click.option(
    "--affected-by",
    "changed",
    multiple=True,
    metavar="FILE",
    help="Only the environments a change to FILE can affect (under their paths, their var "
    "files, or the project file); repeatable; '-' reads the names from stdin, one a line "
    "(git diff --name-only BASE | reconciler environments --affected-by -).",
)
@click.option("--schema", is_flag=True, help="Print the JSON Schema of reconciler.yaml instead.")
def environments(
    project_file: Path | None, envs: tuple[str, ...], fmt: str, changed: tuple[str, ...],
    schema: bool,
) -> None:  # fmt: skip
    """List the environments of the project file (reconciler.yaml)."""
    from reconciler.project import locate_project, project_schema_text, resolve, select
    from reconciler.project.environments import affected

    if schema:
        click.echo(project_schema_text(), nl=False)
        return
    project = locate_project(project_file)
    targets = [resolve(project, name) for name in select(project, envs or ("*",))]
    if changed:
        files = [Path(f) for f in _changed_names(changed)]
        targets = [t for t in targets if affected(project, t, files)]
    rows = [_listing(target) for target in targets]
    if fmt == "json":
        click.echo(json.dumps(rows, indent=2, ensure_ascii=False))
        return
    width = max((len(row["name"]) for row in rows), default=0)
    for row in rows:
        url = row["helpdesk_url"] or row["workspace_url"] or "(URLs from the environment)"
        click.echo(f"{row['name'].ljust(width)}  {url}  {' '.join(row['paths'])}")
    sys.stdout.flush()  # pragma: no mutate (equivalent: nothing follows; the exit flushes)


def _changed_names(given: tuple[str, ...]) -> list[str]:
    names = [name for name in given if name != "-"]
    if "-" in given:
        names += [line.strip() for line in sys.stdin if line.strip()]
    return names


def _listing(target: Any) -> dict[str, Any]:
    declared = target.declared
    return {
        "name": target.name,
        "description": declared.description,
        "paths": [str(p) for p in target.paths],
        "var_files": [str(p) for p in target.var_files],
        "helpdesk_url": declared.helpdesk_url,
        "workspace_url": declared.workspace_url,
        "credentials": {str(k): v for k, v in declared.credentials.items()},
        "wave": declared.wave,  # apply's wave (None: no waves), for a CI pipeline's stages
    }
