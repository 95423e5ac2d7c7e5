"""The project file `reconciler.yaml` (DESIGN §8) as pydantic models: the one source of
its JSON Schema (`schemas/project.schema.json`).

    environments:
      acme:
        paths: [baseline, tenants/acme]
        var_files: [tenants/acme/vars.yaml]
        helpdesk_url: https://acme.example.com/helpdesk
        workspace_url: https://ws.acme.example.com
        allow_http: false       # true: credentials over http:// beyond loopback
        credentials: {HELPDESK_TOKEN: ACME_HELPDESK_TOKEN}
        rate_limit: 90
        wave: 1                 # apply --env '*': in waves (every environment, or none)

Paths are relative to the directory holding the project file. Environments keep the order
they are written in: it is the order plans are shown and applies run.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated
from urllib.parse import urlsplit

from pydantic import BaseModel, ConfigDict, Field, StringConstraints, field_validator
from pydantic_core import PydanticCustomError

from reconciler.manifest.models import NonEmpty

# The upper bound of every --*rate-limit option (cli/extras.MAX_RATE), repeated here since
# the project sits below the CLI.
MAX_RATE = 10_000

EnvironmentName = Annotated[
    str, StringConstraints(pattern=r"^[A-Za-z0-9][A-Za-z0-9_.-]*$", max_length=64)
]
VariableName = Annotated[str, StringConstraints(pattern=r"^[A-Za-z_][A-Za-z0-9_]*$")]
Rate = Annotated[int, Field(ge=0, le=MAX_RATE)]
MAX_WAVE = 1_000


class Credential(StrEnum):
    """The credentials reconciler reads, each from the variable an environment names."""

    HELPDESK_TOKEN = "HELPDESK_TOKEN"
    HELPDESK_USERNAME = "HELPDESK_USERNAME"
    HELPDESK_PASSWORD = "HELPDESK_PASSWORD"
    WORKSPACE_API_KEY = "WORKSPACE_API_KEY"


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class SafetyOverrides(_Strict):
    """Brakes for this environment, in place of the manifests' `settings.safety`."""

    max_change_percent: Annotated[int, Field(ge=0, le=100)] | None = Field(
        None, description="Refuse when removals+updates exceed this share of a kind."
    )
    min_existing: Annotated[int, Field(ge=0)] | None = Field(
        None, description="The percent brake applies only to kinds with at least this many."
    )
    max_irreversible: Annotated[int, Field(ge=0)] | None = Field(
        None, description="Refuse more irreversible deletions than this in one run."
    )


class Environment(_Strict):
    """One helpdesk (and workspace) the manifests are applied to."""

    description: str | None = Field(None, description="Shown by `reconciler environments`.")
    paths: list[NonEmpty] = Field(
        min_length=1,
        description="Manifest files and directories, in order: the shared baseline first, "
        "then the environment's own (whose entries may refine the baseline's).",
        examples=[["baseline", "tenants/acme"]],
    )
    var_files: list[NonEmpty] = Field(
        default_factory=list, description="Variables files (as --var-file), in order."
    )
    helpdesk_url: NonEmpty | None = Field(
        None,
        description="The helpdesk this environment is bound to: a HELPDESK_URL or "
        "--helpdesk-url that differs is refused (the wrong-tenant guard).",
    )
    workspace_url: NonEmpty | None = Field(
        None, description="The workspace service this environment is bound to."
    )
    allow_http: bool = Field(
        False,
        description="Send the credentials over http:// to a host that is not loopback "
        "(as --allow-http); otherwise such a URL is refused before any call.",
    )
    credentials: dict[Credential, VariableName] = Field(
        default_factory=dict,
        description="Which environment variable holds each credential; those of a service "
        "named here replace the plain ones (HELPDESK_TOKEN, ...) for this environment.",
        examples=[{"HELPDESK_TOKEN": "ACME_HELPDESK_TOKEN"}],
    )
    rate_limit: Rate | None = Field(None, description="Helpdesk calls a minute (--rate-limit).")
    search_rate_limit: Rate | None = Field(
        None, description="Search/UserByEmail calls a minute (--search-rate-limit)."
    )
    safety: SafetyOverrides | None = Field(
        None, description="Safety brake settings overriding the manifests' for this environment."
    )
    wave: Annotated[int, Field(ge=0, le=MAX_WAVE)] | None = Field(
        None,
        description="`apply` over several environments: the wave this one applies in (as "
        "Atlantis's execution_order_group). Waves run in ascending order, the environments "
        "of one wave at once (at most --max-parallel); a failure stops the run before the "
        "next wave. Give every environment a wave, or none (then they apply one after "
        "another in the order written).",
        examples=[1],
    )

    @field_validator("helpdesk_url", "workspace_url")
    @classmethod
    def _no_credentials(cls, url: str | None) -> str | None:
        """A password in the project file would be printed wherever the URL is."""
        if url is not None and _has_userinfo(url):
            raise PydanticCustomError(
                "url_credentials",
                "the URL carries a user name or password (before '@'): remove it and name "
                "the variables that hold the credentials under credentials:",
            )
        return url


def _has_userinfo(url: str) -> bool:
    try:
        return "@" in urlsplit(url.strip()).netloc
    except ValueError:  # an address that does not parse: the client refuses it clearly
        return "@" in url.split("//", 1)[-1].split("/", 1)[0]


class ProjectFile(_Strict):
    """`reconciler.yaml`: the environments of one manifests repository."""

    environments: dict[EnvironmentName, Environment] = Field(
        min_length=1, description="Environments by name (the name given to --env)."
    )
