"""`reconciler plan`: read the live state and print the plan; writes nothing."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from reconciler.cli.options import (
    changed_since_option,
    connection_flags,
    connection_options,
    environments,
    flags,
    fleet_options,
    manifest_paths,
    plan_report_options,
    var_files,
)


@click.command()
@fleet_options
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
    help="Also save the plan, with what it was made from, for `apply --plan`.",
)
@click.option(
    "--comment-dir",
    type=click.Path(file_okay=False, path_type=Path),
    help="Also write the plan as Markdown comments DIR/1.md, DIR/2.md, ... of at most "
    "60,000 characters each, part 1 with the summary (whatever --format says).",
)
@click.option(
    "--source-url",
    metavar="BASE",
    help="In the Markdown, link each change to its manifest line: BASE/FILE#LLINE "
    "(e.g. https://github.com/ORG/REPO/blob/COMMIT).",
)
@click.option("--detailed-exitcode", is_flag=True, help="Exit 2 when there are changes.")
@click.option(
    "--fail-on",
    type=click.Choice(["drift", "pending", "any"]),
    help="With --detailed-exitcode, exit 2 only for changes labelled drift (a hand change) or "
    "pending (merged, not applied), or for any change (the default); docs/drift.md.",
)
@click.option(
    "--fail-on-unmanaged",
    is_flag=True,
    help="Exit 1 when a kind the manifests manage, read in full, has live objects no "
    "entry names (the plan lists them; kinds not read in full are not judged).",
)
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
    help="Leave these objects (and what needs them) out; repeatable.",
)
@changed_since_option
@var_files
@plan_report_options
@connection_options
def plan(**given: Any) -> None:
    """Read the live state and print the plan; writes nothing to any API."""
    from reconciler.errors import UsageError
    from reconciler.fleet.dispatch import run_command
    from reconciler.run.flags import PlanFlags, ReportFlags

    if given["fail_on"] is not None and not given["detailed_exitcode"]:
        raise UsageError(
            "--fail-on picks which changes make --detailed-exitcode exit 2: add "
            "--detailed-exitcode, or leave --fail-on out"
        )
    reports, connection = flags(ReportFlags, given), connection_flags(given)
    chosen = flags(PlanFlags, given, fail_on=given["fail_on"] or "any", reports=reports,
                   connection=connection)  # fmt: skip
    run_command(chosen, environments(given))
