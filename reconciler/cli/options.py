"""The options commands share, and their values made into the typed flags the library
takes (reconciler/run/flags.py): manifest paths, --var-file, --changed-since, the
connection options (or --sandbox), the report options, and --env with its companions."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import click

from reconciler.run.flags import ConnectionFlags, Environments
from reconciler.sandbox.config import builtin_seed_names

# The highest calls-a-minute any --*rate-limit option takes (0 turns the limiter off): the
# helpdesk allows 90; a self-hosted install may allow more, not 10,000.
MAX_RATE = 10_000

F = TypeVar("F")
Decorator = Callable[[Callable[..., Any]], Callable[..., Any]]

# Not required by click: `--env NAME` gives them instead (fleet/dispatch.py checks).
manifest_paths = click.argument("paths", nargs=-1, type=click.Path(path_type=Path))
var_files = click.option(
    "--var-file",
    "var_files",
    multiple=True,
    type=click.Path(dir_okay=False, path_type=Path),
    help="YAML mapping of NAME: value filling ${NAME} before the environment; repeatable.",
)
changed_since_option = click.option(
    "--changed-since",
    "since",
    metavar="REF",
    help="Plan only the entries added or changed since this git revision, and those they "
    "name (a partial plan: it removes nothing).",
)


def _apply_all(options: list[Decorator]) -> Decorator:
    def decorate(func: Callable[..., Any]) -> Callable[..., Any]:
        for option in reversed(options):
            func = option(func)
        return func

    return decorate


connection_options = _apply_all([
    click.option("--helpdesk-url", help="Helpdesk base URL (or HELPDESK_URL); /api is appended."),
    click.option("--workspace-url", help="Workspace base URL (or WORKSPACE_URL)."),
    click.option("--rate-limit", type=click.IntRange(0, MAX_RATE), default=90, show_default=True,
                 help="Helpdesk calls a minute; 0 for installs with DisableRateLimit."),
    click.option("--search-rate-limit", type=click.IntRange(0, MAX_RATE), default=60,
                 show_default=True, help="Search/UserByEmail calls a minute."),
    click.option(
        "--timeout", type=click.FloatRange(min=0.1, max=3600), default=60, show_default=True,
        envvar="RECONCILER_TIMEOUT", metavar="SECONDS",
        help="Longest wait for one whole answer (connecting: at most 10 s); a failing "
        "call is not retried after SECONDS more, so a silent server costs about 2 x "
        "SECONDS (or RECONCILER_TIMEOUT).",
    ),
    click.option("--allow-http", is_flag=True,
                 help="Send the credentials over http:// to a host that is not loopback "
                 "(refused otherwise: use https://)."),
    click.option("--ca-file", type=click.Path(dir_okay=True, path_type=str), metavar="FILE",
                 help="PEM certificates to check the servers' against (or REQUESTS_CA_BUNDLE; "
                 "default: certifi's, or SSL_CERT_FILE/SSL_CERT_DIR)."),
    click.option("--sandbox", is_flag=True,
                 help="Start an embedded sandbox on loopback (state in .reconciler/sandbox.db)."),
    click.option("--sandbox-seed", default="acme", show_default=True,
                 help="With --sandbox: seed used on first start (a built-in one: "
                 f"{', '.join(builtin_seed_names())}; or a seed file); given, it must be "
                 "the seed .reconciler/sandbox.db was made from."),
])  # fmt: skip


def flags(cls: Callable[..., F], given: dict[str, Any], **computed: Any) -> F:
    """`cls` made from the command's parameters of the same names, and `computed`."""
    names = inspect.signature(cls).parameters.keys() - computed.keys()
    return cls(**{name: given[name] for name in names if name in given}, **computed)


def connection_flags(given: dict[str, Any]) -> ConnectionFlags:
    """The connection options' values; a rate limit left at its default is None (the
    environment's own then applies)."""
    context = click.get_current_context()

    def chosen(name: str) -> Any:
        default = context.get_parameter_source(name) in (None, click.core.ParameterSource.DEFAULT)
        return None if default else given[name]

    sandbox = None
    if given["sandbox"]:
        from reconciler.sandbox.start import embedded

        sandbox = embedded(None if chosen("sandbox_seed") is None else given["sandbox_seed"])
    return flags(ConnectionFlags, given, rate_limit=chosen("rate_limit"),
                 search_rate_limit=chosen("search_rate_limit"), sandbox=sandbox)  # fmt: skip


annotation_options = _apply_all([
    click.option(
        "--annotations", type=click.Choice(["github", "gitlab", "none"]), default=None,
        help="Put errors and warnings on the manifest lines: GitHub workflow commands (on "
        "stderr), or with gitlab the --codequality file. Default: github under GitHub "
        "Actions (GITHUB_ACTIONS), gitlab under GitLab CI (GITLAB_CI), else none.",
    ),
    click.option(
        "--codequality", type=click.Path(dir_okay=False, path_type=Path),
        help="Also write the findings as a GitLab Code Quality report (JSON), even when none.",
    ),
])  # fmt: skip
plan_report_options = _apply_all([
    annotation_options,
    click.option("--html", "html_file", type=click.Path(dir_okay=False, path_type=Path),
                 help="Also write the plan as one self-contained HTML page (filters, search; "
                 "links to the manifest lines with --source-url)."),
    click.option("--junit", "junit_file", type=click.Path(dir_okay=False, path_type=Path),
                 help="Also write JUnit XML: a test case per kind, failing on changes or errors."),
    click.option(
        "--job-summary", "job_summary_file", envvar="GITHUB_STEP_SUMMARY",
        type=click.Path(dir_okay=False),  # a str: only ever opened to append
        help="Append the plan's summary (Markdown) to FILE, within GitHub's 1 MiB "
        "(default: $GITHUB_STEP_SUMMARY, GitHub's job summary).",
    ),
])  # fmt: skip


env_option = click.option(
    "--env", "envs", multiple=True, metavar="NAME|PATTERN",
    help="Run for this environment of reconciler.yaml (its paths, var files, URLs and "
    "credentials); repeatable; shell-style patterns ('*' for all).",
)  # fmt: skip
project_option = click.option(
    "--project", "project_file", type=click.Path(dir_okay=False, path_type=Path),
    help="The project file (default: reconciler.yaml here or in a directory above).",
)  # fmt: skip
max_parallel_option = click.option(
    "--max-parallel", type=click.IntRange(min=0), default=32, show_default=True,
    help="With several environments: how many are planned (exported; in one apply "
    "wave, applied) at once (0: all).",
)  # fmt: skip
report_file_option = click.option(
    "--report-file", type=click.Path(dir_okay=False, path_type=Path),
    help="With --env: also write the run summary of the environments as JSON.",
)  # fmt: skip
environment_options = _apply_all([env_option, project_option])
fleet_options = _apply_all([env_option, project_option, max_parallel_option,
                            report_file_option])  # fmt: skip
export_environment_options = _apply_all([env_option, project_option, max_parallel_option])


def environments(given: dict[str, Any]) -> Environments:
    """--env and its companions (those the command has)."""
    return flags(Environments, given)
