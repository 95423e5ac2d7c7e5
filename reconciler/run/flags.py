"""What each command is asked to do, as the command line parsed it: one frozen object per
command (`ValidateFlags`, `PlanFlags`, `ApplyFlags`, `ExportFlags`) and the parts they
share (`ConnectionFlags`, `ReportFlags`). `for_target` gives the flags a command runs
with for one environment of the project file: its paths, its var files before those
given, its rate limits where none was given. Only the standard library is imported here:
`validate` and `--help` start quickly."""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Self

if TYPE_CHECKING:
    from reconciler.clients.connection import Connection
    from reconciler.project import Target

RATE_LIMIT = 90  # helpdesk calls a minute, when neither the flag nor the environment says
SEARCH_RATE_LIMIT = 60  # Search/UserByEmail calls a minute, likewise
TIMEOUT = 60.0  # seconds: the longest wait for one answer


@dataclass(frozen=True)
class ConnectionFlags:
    """--helpdesk-url, --workspace-url, the rate limits, --timeout and --sandbox. A rate
    limit of None was not given: the environment's own, else the default."""

    helpdesk_url: str | None = None
    workspace_url: str | None = None
    rate_limit: int | None = None
    search_rate_limit: int | None = None
    timeout: float = TIMEOUT
    allow_http: bool = False  # --allow-http: credentials over http:// beyond loopback
    ca_file: str | None = None  # --ca-file: the certificates a server's is checked against
    # --sandbox: starts the embedded sandbox (the command line's, which alone imports it)
    # and gives the context its connection lives in.
    sandbox: Callable[[], AbstractContextManager[Connection]] | None = None

    @property
    def rates(self) -> tuple[int, int]:
        """(general, search) calls a minute, defaults filled in."""
        general = RATE_LIMIT if self.rate_limit is None else self.rate_limit
        search = SEARCH_RATE_LIMIT if self.search_rate_limit is None else self.search_rate_limit
        return general, search

    def for_target(self, target: Target) -> ConnectionFlags:
        """The environment's rate limits where the command line gave none; http://
        allowed by either."""
        return replace(
            self,
            allow_http=self.allow_http or target.allow_http,
            rate_limit=self.rate_limit if self.rate_limit is not None else target.rate_limit,
            search_rate_limit=self.search_rate_limit
            if self.search_rate_limit is not None
            else target.search_rate_limit,
        )


@dataclass(frozen=True)
class ReportFlags:
    """--annotations and --codequality (validate, plan); --html, --junit, --job-summary,
    --comment-dir and --source-url (plan)."""

    annotations: str | None = None
    codequality: Path | None = None
    html_file: Path | None = None
    junit_file: Path | None = None
    job_summary_file: str | None = None
    comment_dir: Path | None = None
    source_url: str | None = None


@dataclass(frozen=True)
class ValidateFlags:
    paths: tuple[Path, ...] = ()
    var_files: tuple[Path, ...] = ()
    reports: ReportFlags = field(default_factory=ReportFlags)

    def for_target(self, target: Target) -> ValidateFlags:
        return replace(self, paths=target.paths, var_files=(*target.var_files, *self.var_files))


@dataclass(frozen=True)
class ManifestFlags:
    """What every command that reads manifests, connects and plans is given (`plan`,
    `apply`); an environment of reconciler.yaml supplies its own paths, var files and
    connection (`for_target`)."""

    paths: tuple[Path, ...] = ()
    var_files: tuple[Path, ...] = ()
    connection: ConnectionFlags = field(default_factory=ConnectionFlags)
    prune: bool = False
    targets: tuple[str, ...] = ()
    excludes: tuple[str, ...] = ()
    since: str | None = None  # --changed-since

    def for_target(self, target: Target) -> Self:
        return replace(
            self,
            paths=target.paths,
            var_files=(*target.var_files, *self.var_files),
            connection=self.connection.for_target(target),
        )


@dataclass(frozen=True)
class PlanFlags(ManifestFlags):
    fmt: str = "text"  # --format: text, json or markdown
    out: Path | None = None
    detailed_exitcode: bool = False
    fail_on: str = "any"  # --fail-on: drift, pending or any (the labels that exit 2)
    fail_on_unmanaged: bool = False
    reports: ReportFlags = field(default_factory=ReportFlags)


@dataclass(frozen=True)
class ApplyFlags(ManifestFlags):
    plan_file: Path | None = None  # --plan
    yes: bool = False
    force: bool = False
    lock_timeout: float = 0
    log_file: Path | None = None  # --log
    parallelism: int = 10


@dataclass(frozen=True)
class ExportFlags:
    out: Path | None = None
    kinds: tuple[str, ...] = ()
    targets: tuple[str, ...] = ()
    excludes: tuple[str, ...] = ()
    rule_ids: tuple[str, ...] = ()
    include_empty: bool = False
    schema_ref: str | None = None  # --schema
    force: bool = False
    connection: ConnectionFlags = field(default_factory=ConnectionFlags)
    scope_from: Path | None = None  # --scope-from

    def for_target(self, target: Target) -> ExportFlags:
        return replace(self, connection=self.connection.for_target(target))


@dataclass(frozen=True)
class Environments:
    """--env, --project, and with several environments --max-parallel and --report-file
    (reconciler/fleet/dispatch.py)."""

    envs: tuple[str, ...] = ()
    project_file: Path | None = None
    max_parallel: int = 32  # 0: all at once
    report_file: Path | None = None


Flags = ValidateFlags | PlanFlags | ApplyFlags | ExportFlags


def bound_urls(flags: Flags) -> tuple[str | None, str | None]:
    """--helpdesk-url and --workspace-url, which the wrong-tenant guard checks (`validate`
    connects nowhere: it has neither)."""
    if isinstance(flags, ValidateFlags):
        return None, None
    return flags.connection.helpdesk_url, flags.connection.workspace_url
