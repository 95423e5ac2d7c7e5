"""An environment made ready to run: which of the project's environments `--env` selects
(names or shell-style patterns), its manifest paths and var files as paths to open, the
variables its connection is made from, and the wrong-tenant guard.

The guard: an environment declaring `helpdesk_url` (or `workspace_url`) is bound to that
address. A `HELPDESK_URL`/`WORKSPACE_URL` in the environment, or a `--helpdesk-url`/
`--workspace-url`, that names another address is an error before any call, naming both
(compared as the apply lock compares addresses: scheme and host in lower case, the
default port dropped, the loopback names as one, trailing slashes ignored). The same
address is accepted, so a CI job that also exports the URL keeps working."""

from __future__ import annotations

import fnmatch
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from reconciler.errors import UsageError
from reconciler.manifest.models import Safety
from reconciler.project.load import Project, locate_project
from reconciler.project.model import Credential, Environment

if TYPE_CHECKING:
    from reconciler.manifest.desired import DesiredState

# The credentials of each service: naming one of them for an environment replaces all
# the plain variables of that service, so that another tenant's token never leaks in.
SERVICE_CREDENTIALS = {
    "helpdesk": (
        Credential.HELPDESK_TOKEN,
        Credential.HELPDESK_USERNAME,
        Credential.HELPDESK_PASSWORD,
    ),
    "workspace": (Credential.WORKSPACE_API_KEY,),
}
_URL_VARIABLES = {"helpdesk": "HELPDESK_URL", "workspace": "WORKSPACE_URL"}


def select(project: Project, patterns: Sequence[str]) -> list[str]:
    """The environments `patterns` name, in the project's order; a pattern matching none
    is an error naming the environments there are."""
    names = project.names
    unmatched = [p for p in patterns if not fnmatch.filter(names, p)]
    if unmatched:
        raise UsageError(
            f"no environment {', '.join(repr(p) for p in unmatched)} in {project.path} "
            f"(its environments: {', '.join(names)})"
        )
    return [name for name in names if any(fnmatch.fnmatchcase(name, p) for p in patterns)]


def normalise_url(url: str) -> str:
    """`HTTPS://Acme.Example.com:443/helpdesk/` -> `https://acme.example.com/helpdesk`: the
    address as the apply lock compares it (`service_address`), the path as written, so
    that a guard errs on the side of refusing."""
    from reconciler.clients.urls import service_address  # httpx: only when guarding

    return service_address(url)


@dataclass(frozen=True)
class Target:
    """One environment ready to run."""

    name: str
    paths: tuple[Path, ...]
    var_files: tuple[Path, ...]
    helpdesk_url: str | None
    workspace_url: str | None
    rate_limit: int | None
    search_rate_limit: int | None
    declared: Environment
    where: str  # the environment's line in the project file
    # The repository the project file is in: var files outside it are not read.
    root: Path = Path(".")
    # Every variable any environment reads a credential from: no manifest value may name
    # one, whichever environment runs (a manifest is shared by environments).
    credential_variables: frozenset[str] = frozenset()

    @property
    def allow_http(self) -> bool:
        """`allow_http: true`: credentials over http:// beyond loopback (--allow-http)."""
        return self.declared.allow_http

    def variables(self, environ: Mapping[str, str]) -> dict[str, str]:
        """The variables this environment's connection is made from: `environ`, with the
        declared URLs and the credentials read from the variables `credentials` names."""
        result = dict(environ)
        missing = []
        for names in SERVICE_CREDENTIALS.values():
            if not any(name in self.declared.credentials for name in names):
                continue
            for name in names:
                result.pop(name.value, None)
                source = self.declared.credentials.get(name)
                if source is None:
                    continue
                if source in environ:
                    result[name.value] = environ[source]
                else:
                    missing.append(f"{source} (its {name.value})")
        if missing:
            raise UsageError(
                f"environment {self.name}: {', '.join(missing)} not set ({self.where})"
            )
        for service, url in (("helpdesk", self.helpdesk_url), ("workspace", self.workspace_url)):
            if url:
                result[_URL_VARIABLES[service]] = url
        return result

    def guard(
        self,
        environ: Mapping[str, str],
        helpdesk_flag: str | None = None,
        workspace_flag: str | None = None,
    ) -> None:
        """The wrong-tenant guard (module docstring); raises UsageError naming both."""
        from reconciler.clients.urls import has_userinfo  # httpx: only when guarding

        found = []
        for service, declared, flag in (
            ("helpdesk", self.helpdesk_url, helpdesk_flag),
            ("workspace", self.workspace_url, workspace_flag),
        ):
            variable = _URL_VARIABLES[service]
            for given, how in ((flag, f"--{service}-url"), (environ.get(variable), variable)):
                if declared and given and has_userinfo(given):
                    raise UsageError(
                        f"{how} carries a user name or password (before '@'): remove it "
                        "and give the credentials in their variables"
                    )
                if declared and given and normalise_url(given) != normalise_url(declared):
                    found.append(
                        f"{how} is {given}, but environment {self.name} is bound to "
                        f"{declared} ({self.where})"
                    )
        if found:
            raise UsageError(
                "wrong tenant: " + "; ".join(found) + ". Nothing was sent: unset the "
                "variable (or drop the flag) to use the environment's own address"
            )

    def safety(self, current: Safety) -> Safety:
        """The manifests' brake settings with this environment's overrides."""
        overrides = self.declared.safety
        if overrides is None:
            return current
        given = overrides.model_dump(exclude_none=True)
        return current.model_copy(update=given)


def resolve(project: Project, name: str) -> Target:
    """Environment `name` of `project`, its paths relative to the project file."""
    declared = project.environment(name)
    root = project.root
    return Target(
        name=name,
        paths=tuple(root / p for p in declared.paths),  # an absolute path stays as written
        var_files=tuple(root / v for v in declared.var_files),
        helpdesk_url=declared.helpdesk_url,
        workspace_url=declared.workspace_url,
        rate_limit=declared.rate_limit,
        search_rate_limit=declared.search_rate_limit,
        declared=declared,
        where=project.where(name),
        root=root,
        credential_variables=frozenset(
            str(variable)
            for environment in project.model.environments.values()
            for variable in environment.credentials.values()
        ),
    )


def affected(project: Project, target: Target, changed: Sequence[Path]) -> bool:
    """Whether a change to the files `changed` (paths as git names them, relative to the
    current directory) can change `target`'s plan: a file under one of its paths, one of
    its var files, or the project file itself."""
    own = [Path(os.path.normpath(p)) for p in (*target.paths, *target.var_files, project.path)]
    for name in changed:
        path = Path(os.path.normpath(name))
        if any(path == mine or mine in path.parents for mine in own):
            return True
    return False


def with_safety(desired: DesiredState, target: Target) -> DesiredState:
    """The manifests with the environment's safety brake settings, if it has any."""
    if target.declared.safety is None:
        return desired
    safety = target.safety(desired.settings.safety)
    new_settings = desired.settings.model_copy(update={"safety": safety})
    manifest = desired.manifest.model_copy(update={"settings": new_settings})
    return replace(desired, manifest=manifest)


def listing(target: Target) -> dict[str, Any]:
    """What `reconciler environments --format json` says of an environment."""
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


def listings(
    project_file: Path | None, patterns: Sequence[str], changed: Sequence[Path] | None = None
) -> list[dict[str, Any]]:
    """`reconciler environments`: the environments `patterns` select (all without one),
    only those a change to `changed` can affect when given, each as `listing` says it."""
    project = locate_project(project_file)
    targets = [resolve(project, name) for name in select(project, patterns or ("*",))]
    if changed is not None:
        targets = [target for target in targets if affected(project, target, changed)]
    return [listing(target) for target in targets]


def listing_text(rows: Sequence[dict[str, Any]]) -> str:
    """The listings for a person: name, address, paths; a line each."""
    width = max((len(row["name"]) for row in rows), default=0)
    lines = []
    for row in rows:
        url = row["helpdesk_url"] or row["workspace_url"] or "(URLs from the environment)"
        lines.append(f"{row['name'].ljust(width)}  {url}  {' '.join(row['paths'])}\n")
    return "".join(lines)
