"""The command line: a thin click layer over the library (parse flags, call, map errors
to exit codes). Human output and progress go to stderr; the plan goes to stdout.

Exit codes: 0 success (with --detailed-exitcode: no changes), 1 error, 2 changes present
(only with --detailed-exitcode)."""

from __future__ import annotations

import asyncio
import os
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import click

from reconciler import __version__
from reconciler.console import OperationsBar, Progress, colour, print_report
from reconciler.errors import ProblemsError, ReconcilerError


class ReconcilerGroup(click.Group):
    """Turns every `ReconcilerError` into a clean message and exit 1, never a traceback."""

    def invoke(self, ctx: click.Context) -> object:
        try:
            return super().invoke(ctx)
        except ProblemsError as err:
            for problem in err.problems:
                click.echo(problem, err=True)
            count = len(err.problems)
            click.echo(f"Error: {count} problem{'s' if count != 1 else ''} found.", err=True)
            sys.exit(1)
        except ReconcilerError as err:
            click.echo(f"Error: {err}", err=True)
            sys.exit(1)


@click.group(cls=ReconcilerGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="reconciler")
def main() -> None:
    """Configuration-as-code for a helpdesk service and a workspace service."""


@main.group(cls=ReconcilerGroup)
def sandbox() -> None:
    """The local sandbox of both APIs."""


@sandbox.command("serve")
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to listen on.")
@click.option("--port", default=8765, show_default=True, type=int, help="Port; 0 picks a free one.")
@click.option(
    "--db",
    default=".reconciler/sandbox.db",
    show_default=True,
    type=click.Path(dir_okay=False, path_type=Path),
    help="SQLite file that keeps the state across restarts.",
)
@click.option(
    "--seed",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="YAML or JSON file loaded into an empty database (docs/sandbox-seed.md).",
)
@click.option("--reset", is_flag=True, help="Empty the database first.")
@click.option(
    "--quirk", "quirks", multiple=True, help="Switch on a real-world quirk (repeatable; 'all')."
)
@click.option("--faults", default="", help="Inject faults, e.g. 'error=0.05,drop=0.02,seed=1'.")
@click.option(
    "--rate-limit", default=90, show_default=True, type=int, help="Calls a minute; 0 = off."
)
@click.option(
    "--search-rate-limit", default=60, show_default=True, type=int, help="Search/UserByEmail."
)
def sandbox_serve(**options: Any) -> None:
    """Serve the helpdesk under /helpdesk and the workspace service under /workspace."""
    from reconciler.sandbox.serve import serve_forever

    serve_forever(**options)


# -- manifests ---------------------------------------------------------------------------

manifest_paths = click.argument("paths", nargs=-1, required=True, type=click.Path(path_type=Path))
var_files = click.option(
    "--var-file",
    "var_files",
    multiple=True,
    type=click.Path(dir_okay=False, path_type=Path),
    help="YAML mapping of NAME: value filling ${NAME} before the environment; repeatable.",
)


def _manifests(paths: tuple[Path, ...], var_file_paths: tuple[Path, ...]) -> Any:
    """Load and validate the manifests (with --var-file values), print the warnings."""
    from reconciler.manifest import validate_manifests
    from reconciler.manifest.varfiles import load_var_files

    variables = load_var_files(list(var_file_paths)) if var_file_paths else None
    result = validate_manifests(list(paths), os.environ, variables)
    for message in result.warnings:
        click.echo(f"Warning: {message}", err=True)
    return result


@main.command()
@manifest_paths
@var_files
def validate(paths: tuple[Path, ...], var_files: tuple[Path, ...]) -> None:
    """Check manifests offline: syntax, schema, duplicates, references. No network."""
    desired = _manifests(paths, var_files).desired
    count = sum(len(desired.entries(kind)) for kind in desired.kinds_used)
    click.echo(f"Valid: {count} objects in {len(desired.files)} file(s).", err=True)


@main.command()
@click.option(
    "--markdown",
    is_flag=True,
    help="Print the field reference instead (committed as docs/manifest-reference.md).",
)
def schema(markdown: bool) -> None:
    """Print the JSON Schema of manifests (committed as schemas/manifest.schema.json)."""
    from reconciler.manifest import schema_text
    from reconciler.manifest.reference import reference_markdown

    click.echo(reference_markdown() if markdown else schema_text(), nl=False)


# -- plan --------------------------------------------------------------------------------


def connection_options(func: Callable[..., Any]) -> Callable[..., Any]:
    options = [
        click.option(
            "--helpdesk-url", help="Helpdesk base URL (or HELPDESK_URL); /api is appended."
        ),
        click.option("--workspace-url", help="Workspace base URL (or WORKSPACE_URL)."),
        click.option(
            "--rate-limit",
            type=int,
            default=90,
            show_default=True,
            help="Helpdesk calls a minute; 0 for installs with DisableRateLimit.",
        ),
        click.option(
            "--search-rate-limit",
            type=int,
            default=60,
            show_default=True,
            help="Search/UserByEmail calls a minute.",
        ),
        click.option(
            "--sandbox",
            is_flag=True,
            help="Start an embedded sandbox on loopback (state in .reconciler/sandbox.db).",
        ),
        click.option(
            "--sandbox-seed",
            default="acme",
            show_default=True,
            help="With --sandbox: seed used on first start (acme, empty, or a file).",
        ),
    ]
    for option in reversed(options):
        func = option(func)
    return func


@contextmanager
def _connection(
    helpdesk_url: str | None,
    workspace_url: str | None,
    rate_limit: int,
    search_rate_limit: int,
    sandbox: bool,
    sandbox_seed: str,
) -> Iterator[Any]:
    from reconciler.connection import RateSettings, connection_from
    from reconciler.errors import UsageError

    if sandbox:
        if helpdesk_url or workspace_url:
            raise UsageError("--sandbox cannot be combined with --helpdesk-url/--workspace-url")
        from reconciler.sandbox.embedded import embedded_sandbox

        with embedded_sandbox(seed=sandbox_seed) as connection:
            yield connection
        return
    connection = connection_from(
        os.environ,
        helpdesk_url=helpdesk_url,
        workspace_url=workspace_url,
        rates=RateSettings(rate_limit, search_rate_limit),
    )
    if not connection.configured:
        raise UsageError(
            "no service configured: set HELPDESK_URL (and credentials) and/or "
            "WORKSPACE_URL, or try --sandbox"
        )
    yield connection


@main.command()
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
    help="Also save the plan as JSON, for `apply --plan`.",
)
@click.option("--detailed-exitcode", is_flag=True, help="Exit 2 when there are changes.")
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
    help="Leave these objects out; repeatable.",
)
@var_files
@connection_options
def plan(
    paths: tuple[Path, ...],
    var_files: tuple[Path, ...],
    fmt: str,
    out: Path | None,
    detailed_exitcode: bool,
    prune: bool,
    targets: tuple[str, ...],
    excludes: tuple[str, ...],
    **connection: Any,
) -> None:
    """Read the live state and print the plan; writes nothing to any API."""
    from reconciler.plan import Selector
    from reconciler.render import format_json, format_markdown, format_text
    from reconciler.workflow import read_and_plan

    selected = [Selector.parse(t) for t in targets]
    left_out = [Selector.parse(e) for e in excludes]
    validated = _manifests(paths, var_files)
    with _connection(**connection) as conn, Progress() as progress:
        outcome = asyncio.run(
            read_and_plan(
                validated.desired,
                conn,
                prune=prune,
                targets=selected,
                excludes=left_out,
                on_read=progress.read,
            )
        )
    result = outcome.plan
    if out is not None:
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(format_json(result), encoding="utf-8")
        click.echo(f"Saved the plan to {out}.", err=True)
    if fmt == "json":
        click.echo(format_json(result), nl=False)
    elif fmt == "markdown":
        click.echo(format_markdown(result), nl=False)
    else:
        click.echo(format_text(result, color=colour(sys.stdout)), nl=False)
    if result.errors:
        sys.exit(1)
    if detailed_exitcode and result.has_changes:
        sys.exit(2)


# -- apply -------------------------------------------------------------------------------


def _confirm(count: int, yes: bool) -> None:
    from reconciler.errors import UsageError

    if yes:
        return
    if not sys.stdin.isatty():
        raise UsageError("there is no terminal to confirm on: add --yes to apply without asking")
    noun = "change" if count == 1 else "changes"
    if not click.confirm(f"Apply these {count} {noun}?", default=False, err=True):
        raise UsageError("nothing applied")


@main.command()
@manifest_paths
@click.option(
    "--plan",
    "plan_file",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="Execute a plan saved by `plan --out`; refused when the live state has changed.",
)
@click.option("--yes", is_flag=True, help="Do not ask for confirmation.")
@click.option("--prune", is_flag=True, help="Remove live objects missing from the manifests.")
@click.option("--force", is_flag=True, help="Apply even when the safety brake holds.")
@click.option("--target", "targets", multiple=True, metavar="KIND[/KEY]", help="As for plan.")
@click.option("--exclude", "excludes", multiple=True, metavar="KIND[/KEY]", help="As for plan.")
@click.option(
    "--log",
    "log_file",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Where to write the JSON-lines record (default .reconciler/apply-TIME.jsonl).",
)
@var_files
@connection_options
def apply(
    paths: tuple[Path, ...],
    var_files: tuple[Path, ...],
    plan_file: Path | None,
    yes: bool,
    prune: bool,
    force: bool,
    targets: tuple[str, ...],
    excludes: tuple[str, ...],
    log_file: Path | None,
    **connection: Any,
) -> None:
    """Plan, show, confirm, and execute, in dependency order."""
    from reconciler.applylog import ApplyLog, default_path
    from reconciler.errors import PlanHasErrors, UsageError
    from reconciler.plan import Selector
    from reconciler.render import format_text, plan_from_json
    from reconciler.safety import brake_violations
    from reconciler.workflow import ApplySession

    if plan_file is not None and (targets or excludes or prune):
        # The saved plan is what was reviewed: these would silently change nothing.
        raise UsageError("--target/--exclude/--prune belong to the saved plan: give them to `plan`")
    selected = [Selector.parse(t) for t in targets]
    left_out = [Selector.parse(e) for e in excludes]
    validated = _manifests(paths, var_files)
    saved = None
    if plan_file is not None:
        saved = plan_from_json(plan_file.read_bytes(), source=str(plan_file))
    desired = validated.desired
    log_path = log_file or default_path()

    async def run() -> Any:
        async with ApplySession(desired, conn) as session:
            with Progress() as progress:
                to_apply, live = await session.plan(
                    prune=prune,
                    targets=selected,
                    excludes=left_out,
                    saved=saved,
                    on_read=progress.read,
                )
            click.echo(format_text(to_apply, color=colour(sys.stdout)), nl=False)
            if to_apply.errors:
                raise PlanHasErrors("the plan has errors: fix them, then apply again")
            if not to_apply.changes:
                return None
            violations = brake_violations(to_apply, live, desired.settings.safety)
            if violations and not force:
                raise UsageError(
                    "the safety brake holds (settings.safety):\n  "
                    + "\n  ".join(v.text() for v in violations)
                    + "\nReview the plan, then add --force to apply it anyway."
                )
            _confirm(len(to_apply.changes), yes)
            with ApplyLog(log_path) as log, OperationsBar(to_apply.operation_count) as bar:
                log.event("start", summary=to_apply.summary, live_digest=to_apply.live_digest)
                report = await session.execute(to_apply, log=log, on_operation=bar.advance)
                log.event(
                    "end",
                    done=len(report.done),
                    failed=len(report.failed),
                    not_attempted=len(report.not_attempted) + len(report.partial),
                    operations=report.operations_sent,
                )
            return report

    with _connection(**connection) as conn:
        report = asyncio.run(run())
    if report is None:
        return
    print_report(report, log_path)
    if not report.ok:
        sys.exit(1)


# -- export ------------------------------------------------------------------------------


@main.command()
@click.option(
    "--out",
    type=click.Path(file_okay=False, path_type=Path),
    help="Write one file per kind into this directory (default: one manifest on stdout).",
)
@click.option(
    "--kinds",
    multiple=True,
    metavar="KIND[,KIND...]",
    help="Only these kinds (repeatable or comma-separated; default: every kind whose "
    "service is configured, automation_rules only with --rule-ids).",
)
@click.option(
    "--target", "targets", multiple=True, metavar="KIND[/KEY]", help="Only these objects."
)
@click.option(
    "--exclude", "excludes", multiple=True, metavar="KIND[/KEY]", help="Leave these objects out."
)
@click.option(
    "--rule-ids",
    multiple=True,
    metavar="ID[,ID...]",
    help="The automation rules to export (the API cannot list them).",
)
@click.option(
    "--include-empty",
    is_flag=True,
    help='Also write empty fields ("", [], null), so that the manifests manage them too.',
)
@click.option(
    "--schema",
    "schema_ref",
    metavar="PATH|URL",
    help="What the yaml-language-server comment names (default: manifest.schema.json, "
    "written next to the manifests).",
)
@click.option(
    "--force", is_flag=True, help="Overwrite the export's files in a directory with manifests."
)
@connection_options
def export(
    out: Path | None,
    kinds: tuple[str, ...],
    targets: tuple[str, ...],
    excludes: tuple[str, ...],
    rule_ids: tuple[str, ...],
    include_empty: bool,
    schema_ref: str | None,
    force: bool,
    **connection: Any,
) -> None:
    """Write manifests from the live state; `plan` on them then shows no change."""
    from reconciler.export import (
        Selection,
        check_directory,
        export_live,
        parse_rule_ids,
        write_directory,
    )

    selection = Selection.build(
        kinds=kinds, targets=targets, excludes=excludes, rule_ids=parse_rule_ids(rule_ids)
    )
    if out is not None:
        check_directory(out, force=force)  # before reading: fail fast
    with _connection(**connection) as conn, Progress() as progress:
        result = asyncio.run(
            export_live(conn, selection, include_empty=include_empty, on_read=progress.read)
        )
    for message in result.warnings:
        click.echo(f"Warning: {message}", err=True)
    if out is None:
        click.echo(result.document(schema_ref or "manifest.schema.json"), nl=False)
        click.echo(f"Exported {result.count} object(s).", err=True)
        return
    written = write_directory(result, out, schema=schema_ref, force=force)
    names = ", ".join(p.name for p in written.files)
    click.echo(f"Exported {result.count} object(s) to {out}: {names}.", err=True)
    if written.others:
        others = ", ".join(str(p.relative_to(out)) for p in written.others)
        click.echo(
            f"Warning: {out} also holds other manifests, left as they were, which `plan "
            f"{out}` reads too: {others}",
            err=True,
        )
